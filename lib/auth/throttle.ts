// Password sign-in throttling, kept in the database so that every server process sharing it
// applies the same limits: after LIMITS.account failed attempts for one email, or
// LIMITS.address from one client address (an IPv6 one by its /64), within WINDOW_MS, further attempts are refused (429)
// before the password is hashed. A successful sign-in clears the account's count.
//
// Each attempt first writes its own row (a failure until proven otherwise), then counts: so
// concurrent attempts cannot all pass a check made before any of them was recorded.
import crypto from "node:crypto";
import net from "node:net";
import type { DbTx } from "../db/client";
import { config } from "../config/load";
import { cidrContains, parseCidr, parseIp, type Cidr, type Ip } from "../net/outbound";
import { requestSocket } from "../proxy/servedRequest";
import { NS_PER_MS, nowNs } from "../domain/time";

export const WINDOW_MS = 15 * 60 * 1000;
export const LIMITS = { account: 5, address: 20 } as const;

const MAX_KEY_LENGTH = 320;

export type Attempt = { id: string; email: string; address: string };
export type Refusal = { refused: true; by: "account" | "address"; retryAfterSeconds: number };

export const normalizeLoginEmail = (email: string) => email.trim().toLowerCase().slice(0, MAX_KEY_LENGTH);

const MAPPED = parseCidr("::ffff:0:0/96");
/** An IPv4-mapped IPv6 address (how a dual-stack socket names an IPv4 peer) as the IPv4 address. */
const unmapped = (ip: Ip): Ip => (cidrContains(MAPPED, ip) ? { v: 4, n: ip.n & 0xffffffffn } : ip);
/** A range written in the mapped form (::ffff:10.0.0.0/104) as the IPv4 range it is. */
const unmappedRange = (c: Cidr): Cidr => (c.v === 6 && c.bits >= 96 && cidrContains(MAPPED, { v: 6, n: c.base }) ? { ...c, v: 4, base: c.base & 0xffffffffn, bits: c.bits - 96 } : c);

/** An IPv6 range that holds every mapped IPv4 address (::/0) as that and every IPv4 address too. */
const withIpv4 = (c: Cidr): Cidr[] =>
  c.v === 6 && c.bits <= 96 && cidrContains(c, { v: 6, n: MAPPED.base }) ? [c, { v: 4, base: 0n, bits: 0, text: `${c.text} (IPv4)` }] : [c];

/**
 * `server.trusted_proxies` as ranges to test peers against, which are compared as IPv4 when
 * mapped: mapped IPv4 ranges as IPv4, and an IPv6 range holding all of them with IPv4 as well.
 */
export const proxyRanges = (ranges: string[]): Cidr[] => ranges.flatMap((r) => withIpv4(unmappedRange(parseCidr(r))));

/** Ranges of peers whose X-Forwarded-For is believed: `server.trusted_proxies` (default: this host and private networks). */
let trusted: { ranges: string[]; parsed: Cidr[] } | null = null;
function configuredProxies(): Cidr[] {
  const ranges = config().server.trustedProxies; // the same array until the configuration is read again
  if (trusted?.ranges !== ranges) trusted = { ranges, parsed: proxyRanges(ranges) };
  return trusted.parsed;
}

/** Whether `address` is a trusted reverse proxy's; null when it is not an address. */
function isProxy(address: string, proxies: Cidr[]): boolean | null {
  const ip = parseIp(address);
  if (!ip) return null;
  const seen = unmapped(ip);
  return proxies.some((range) => cidrContains(range, seen));
}

/**
 * The client address. From a trusted reverse proxy (`server.trusted_proxies`): the last
 * X-Forwarded-For entry that is not one too — proxies append the address they saw, so entries
 * to the left of it are whatever the client sent — else X-Real-IP (`next start` fills
 * X-Forwarded-For with the socket's address when a request has none). From any other peer: the
 * peer itself — a client that reaches the server directly must not choose its address. The
 * default trusts this host and the private networks: narrow it to the proxies' own addresses
 * where clients on the private network must not choose theirs either.
 */
export function clientAddress(headers: Headers, peer: string | null | undefined = requestSocket()?.remoteAddress, proxies: Cidr[] = configuredProxies()): string {
  // no peer (the socket unseen): whoever it is may have written the header
  if (!peer || !proxies.length || isProxy(peer, proxies) === false) return (peer || "unknown").slice(0, 100);
  const hops = (headers.get("x-forwarded-for") ?? "").split(",").map((h) => h.trim()).filter(Boolean);
  const client = [...hops].reverse().find((h) => isProxy(h, proxies) !== true) ?? hops[0];
  const address = client || headers.get("x-real-ip")?.trim() || peer || "unknown";
  return address.slice(0, 100);
}

/**
 * What an address is counted under: an IPv6 client by its /64 (one subscriber or host usually
 * holds a whole /64, and could take a new address for every attempt), an IPv4-mapped IPv6
 * address as the IPv4 address; anything else as it is.
 */
export function throttleAddress(address: string): string {
  const plain = address.replace(/^\[|\]$/g, "").split("%")[0];
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(plain);
  if (mapped) return mapped[1];
  if (!net.isIPv6(plain)) return address;
  const [head, tail] = plain.includes("::") ? plain.split("::") : [plain, null];
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const tailWidth = tailGroups.length + (tailGroups.at(-1)?.includes(".") ? 1 : 0); // an IPv4 ending is two groups
  const groups = tail === null ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailWidth).fill("0"), ...tailGroups];
  const hex = groups.map((g) => (g.includes(".") ? g : parseInt(g, 16).toString(16)));
  // IPv4-mapped, however written (::ffff:102:304, 0:0:0:0:0:ffff:1.2.3.4)
  if (hex.slice(0, 5).every((g) => g === "0") && hex[5] === "ffff") {
    if (hex[6]?.includes(".")) return hex[6];
    const [hi, lo] = [parseInt(hex[6], 16), parseInt(hex[7], 16)];
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
  }
  return `${hex.slice(0, 4).join(":")}::/64`;
}

/** When the newest `limit` rows fall to limit - 1 inside the window: seconds from now. */
function retryAfter(times: bigint[], limit: number, nowMs: number): number {
  // times ascending; the count drops below `limit` once times[n - limit] leaves the window
  const pivot = times[times.length - limit];
  const liftMs = Number(pivot / NS_PER_MS) + WINDOW_MS;
  return Math.max(1, Math.ceil((liftMs - nowMs) / 1000));
}

/**
 * Records the start of a password attempt. Refused when the account or the address already
 * has its limit of failures in the window (the attempt is then not recorded: refused attempts
 * do not extend the block).
 */
export async function beginAttempt(db: DbTx, input: { email: string; address: string }, nowMs = Date.now()): Promise<Attempt | Refusal> {
  const email = normalizeLoginEmail(input.email);
  const address = throttleAddress(input.address).slice(0, 100);
  const now = nowNs(nowMs);
  const since = nowNs(nowMs - WINDOW_MS);
  await db.loginAttempt.deleteMany({ where: { atNs: { lte: since } } });
  const id = crypto.randomUUID();
  await db.loginAttempt.create({ data: { id, email, address, atNs: now } });

  const [byAccount, byAddress] = await Promise.all([
    db.loginAttempt.findMany({ where: { email, cleared: false, atNs: { gt: since }, id: { not: id } }, select: { atNs: true }, orderBy: { atNs: "asc" } }),
    db.loginAttempt.findMany({ where: { address, atNs: { gt: since }, id: { not: id } }, select: { atNs: true }, orderBy: { atNs: "asc" } }),
  ]);
  const refusals: Refusal[] = [];
  if (byAccount.length >= LIMITS.account) refusals.push({ refused: true, by: "account", retryAfterSeconds: retryAfter(byAccount.map((r) => r.atNs), LIMITS.account, nowMs) });
  if (byAddress.length >= LIMITS.address) refusals.push({ refused: true, by: "address", retryAfterSeconds: retryAfter(byAddress.map((r) => r.atNs), LIMITS.address, nowMs) });
  if (refusals.length > 0) {
    await db.loginAttempt.deleteMany({ where: { id } });
    return refusals.reduce((a, b) => (b.retryAfterSeconds > a.retryAfterSeconds ? b : a));
  }
  return { id, email, address };
}

/** Ends an attempt: a failure keeps its row; a success removes it and clears the account's count. */
export async function finishAttempt(db: DbTx, attempt: Attempt, succeeded: boolean): Promise<void> {
  if (!succeeded) return;
  await db.loginAttempt.deleteMany({ where: { id: attempt.id } });
  await db.loginAttempt.updateMany({ where: { email: attempt.email, cleared: false }, data: { cleared: true } });
}
