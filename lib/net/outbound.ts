// Where SightDesk may send requests (webhooks, forwarders' terminate requests): the pure part.
// An address is classified (loopback, private, link-local, metadata, …); anything but a public
// address is refused unless an admin allowed its range (`outbound.allow_private`, a list of
// CIDRs). IPv4-mapped and other IPv6 forms that embed an IPv4 address are judged by the IPv4
// address they carry. No I/O here: resolving names and connecting is lib/net/pinned.ts.

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "broadcast"
  | "reserved";

/** A parsed address: 32-bit (IPv4) or 128-bit (IPv6) value. */
export type Ip = { v: 4 | 6; n: bigint };
export type Cidr = { v: 4 | 6; base: bigint; bits: number; text: string };

/** Parses a dotted-quad IPv4 address (no leading zeros beyond "0", no shorthand forms). */
function parseV4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const p of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return null;
    const b = Number(p);
    if (b > 255) return null;
    n = (n << 8n) | BigInt(b);
  }
  return n;
}

function parseV6(input: string): bigint | null {
  let text = input;
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return null;
  // a trailing dotted quad is two groups
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    const v4 = parseV4(text.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [Number(v4 >> 16n), Number(v4 & 0xffffn)];
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith("::")) text = text.slice(0, -1);
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const group = (s: string) => (s === "" ? [] : s.split(":"));
  const head = group(halves[0]);
  const rest = halves.length === 2 ? group(halves[1]) : [];
  for (const g of [...head, ...rest]) if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
  const given = head.length + rest.length + tail.length;
  let groups: number[];
  if (halves.length === 2) {
    if (given > 7) return null;
    groups = [...head.map((g) => parseInt(g, 16)), ...Array(8 - given).fill(0), ...rest.map((g) => parseInt(g, 16)), ...tail];
  } else {
    if (given !== 8) return null;
    groups = [...head.map((g) => parseInt(g, 16)), ...tail];
  }
  return groups.reduce((n, g) => (n << 16n) | BigInt(g), 0n);
}

/** An IPv4 or IPv6 literal (brackets and a zone id allowed), or null. */
export function parseIp(text: string): Ip | null {
  let t = text.trim();
  if (t.startsWith("[") && t.endsWith("]")) t = t.slice(1, -1);
  const v4 = parseV4(t);
  if (v4 !== null) return { v: 4, n: v4 };
  if (!t.includes(":")) return null;
  const v6 = parseV6(t);
  return v6 === null ? null : { v: 6, n: v6 };
}

/** `10.0.0.0/8`, `fd00::/8`, or a single address (a /32 or /128). Throws on anything else. */
export function parseCidr(text: string): Cidr {
  const t = text.trim();
  const slash = t.indexOf("/");
  const ip = parseIp(slash < 0 ? t : t.slice(0, slash));
  const width = ip?.v === 4 ? 32 : 128;
  const bitsText = slash < 0 ? String(width) : t.slice(slash + 1);
  const bits = /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!ip || !(bits >= 0 && bits <= width)) throw new Error(`not a CIDR range: ${JSON.stringify(text)} (expected e.g. 10.0.0.0/8 or fd00::/8)`);
  const mask = bits === 0 ? 0n : ((1n << BigInt(bits)) - 1n) << BigInt(width - bits);
  return { v: ip.v, base: ip.n & mask, bits, text: t };
}

function inRange(ip: Ip, c: Cidr): boolean {
  if (ip.v !== c.v) return false;
  const width = ip.v === 4 ? 32 : 128;
  const mask = c.bits === 0 ? 0n : ((1n << BigInt(c.bits)) - 1n) << BigInt(width - c.bits);
  return (ip.n & mask) === c.base;
}

/** Whether `ip` (text or parsed) lies in the range. */
export function cidrContains(cidr: Cidr | string, ip: Ip | string): boolean {
  const c = typeof cidr === "string" ? parseCidr(cidr) : cidr;
  const a = typeof ip === "string" ? parseIp(ip) : ip;
  return a !== null && inRange(a, c);
}

const V4_RANGES: Array<[string, AddressClass]> = [
  ["169.254.169.254/32", "metadata"],
  ["168.63.129.16/32", "metadata"], // Azure's platform endpoint (WireServer), reachable from every VM
  ["0.0.0.0/8", "unspecified"],
  ["127.0.0.0/8", "loopback"],
  ["10.0.0.0/8", "private"],
  ["172.16.0.0/12", "private"],
  ["192.168.0.0/16", "private"],
  ["100.64.0.0/10", "private"], // carrier-grade NAT, shared address space
  ["169.254.0.0/16", "link-local"],
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"],
  ["192.0.0.0/24", "reserved"], // IETF protocol assignments
  ["198.18.0.0/15", "reserved"], // benchmarking: some networks route it internally
];
const V6_RANGES: Array<[string, AddressClass]> = [
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["fd00:ec2::254/128", "metadata"], // AWS's IPv6 instance metadata endpoint
  ["fc00::/7", "private"], // unique local
  ["64:ff9b:1::/48", "private"], // NAT64 for local use: its IPv4 addresses are the network's own
  ["fec0::/10", "private"], // site-local (deprecated)
  ["fe80::/10", "link-local"],
  ["ff00::/8", "multicast"],
];
/** The ranges of this host and of private networks (where a reverse proxy in front of a server is). */
export const LOCAL_NETWORKS = [...V4_RANGES, ...V6_RANGES].filter(([, kind]) => kind === "loopback" || kind === "private" || kind === "link-local").map(([range]) => range);
const V4_TABLE = V4_RANGES.map(([c, k]) => [parseCidr(c), k] as const);
const V6_TABLE = V6_RANGES.map(([c, k]) => [parseCidr(c), k] as const);

/** IPv6 forms that carry an IPv4 address the packets end up at: mapped, compatible, NAT64, 6to4. */
const EMBEDDING: Array<[Cidr, (n: bigint) => bigint]> = [
  [parseCidr("::ffff:0:0/96"), (n) => n & 0xffffffffn],
  [parseCidr("::/96"), (n) => n & 0xffffffffn],
  [parseCidr("64:ff9b::/96"), (n) => n & 0xffffffffn],
  [parseCidr("2002::/16"), (n) => (n >> 80n) & 0xffffffffn],
];

/** The IPv4 address an IPv6 address stands for (mapped etc.), else the address itself. */
export function effectiveIp(ip: Ip): Ip {
  if (ip.v === 6 && ip.n > 1n) for (const [c, extract] of EMBEDDING) if (inRange(ip, c)) return { v: 4, n: extract(ip.n) };
  return ip;
}

/** What kind of address this is; null when `text` is not an IP literal. */
export function classifyAddress(text: string | Ip): AddressClass | null {
  const parsed = typeof text === "string" ? parseIp(text) : text;
  if (!parsed) return null;
  const ip = effectiveIp(parsed);
  for (const [c, kind] of ip.v === 4 ? V4_TABLE : V6_TABLE) if (inRange(ip, c)) return kind;
  return "public";
}

export type AddressVerdict = { ok: true; kind: AddressClass } | { ok: false; kind: AddressClass | null; reason: string };

/**
 * May SightDesk connect to this address? Public addresses: yes. Others only when an allowed range
 * contains the address (or the IPv4 address it embeds).
 */
export function checkAddress(address: string, allow: readonly Cidr[]): AddressVerdict {
  const parsed = parseIp(address);
  if (!parsed) return { ok: false, kind: null, reason: `${address} is not an IP address` };
  const kind = classifyAddress(parsed)!;
  if (kind === "public") return { ok: true, kind };
  const eff = effectiveIp(parsed);
  if (allow.some((c) => inRange(parsed, c) || inRange(eff, c))) return { ok: true, kind };
  return { ok: false, kind, reason: `${address} is a ${kind} address (allow its range in outbound.allow_private to use it)` };
}

/** Parses the `outbound.allow_private` list (throws naming the bad entry). */
export function parseAllowList(list: readonly string[]): Cidr[] {
  return list.map((s) => parseCidr(s));
}
