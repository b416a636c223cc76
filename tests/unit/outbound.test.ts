// Outbound requests (issue 11): which addresses webhooks and forwarders may point at, the
// `outbound.allow_private` key, and the send path that resolves, checks and pins the address.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendOnce } from "@/lib/alerts/send";
import { loadConfig } from "@/lib/config/load";
import { checkAddress, cidrContains, classifyAddress, parseAllowList, parseCidr, parseIp, type AddressClass } from "@/lib/net/outbound";
import { OutboundBlockedError, pinnedFetch, resolveOutbound, type Resolver } from "@/lib/net/pinned";

describe("classifyAddress", () => {
  it.each<[string, AddressClass | null]>([
    // IPv4
    ["8.8.8.8", "public"],
    ["93.184.216.34", "public"],
    ["172.15.255.255", "public"],
    ["172.32.0.1", "public"],
    ["100.63.255.255", "public"],
    ["100.128.0.1", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.20", "private"],
    ["100.64.0.1", "private"],
    ["100.127.255.255", "private"],
    ["169.254.1.1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["168.63.129.16", "metadata"],
    ["198.18.0.1", "reserved"],
    ["198.19.255.254", "reserved"],
    ["192.0.0.8", "reserved"],
    ["198.20.0.1", "public"],
    // IPv6
    ["2606:4700:4700::1111", "public"],
    ["[2001:db8::1]", "public"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::", "unspecified"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fd00:ec2::254", "metadata"],
    ["ff02::1", "multicast"],
    // IPv6 forms that carry an IPv4 address
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:a9fe:a9fe", "metadata"],
    ["::ffff:10.1.2.3", "private"],
    ["0:0:0:0:0:ffff:c0a8:0101", "private"],
    ["::ffff:8.8.8.8", "public"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::10.0.0.1", "private"],
    ["64:ff9b:1::a9fe:a9fe", "private"],
    ["2002:7f00:1::", "loopback"],
    ["2002:0808:0808::1", "public"],
    // not addresses
    ["localhost", null],
    ["1.2.3", null],
    ["01.2.3.4", null],
    ["256.1.1.1", null],
    ["1::2::3", null],
    ["12345::", null],
  ])("%s → %s", (text, kind) => {
    expect(classifyAddress(text)).toBe(kind);
  });

  it("parses IPv6 the way the URL parser writes it", () => {
    expect(parseIp(new URL("http://[::ffff:127.0.0.1]/").hostname)).toEqual(parseIp("::ffff:7f00:1"));
    expect(classifyAddress(new URL("http://[::ffff:169.254.169.254]/").hostname)).toBe("metadata");
  });
});

describe("checkAddress and the allow list", () => {
  it.each<[string, string[], boolean]>([
    ["8.8.8.8", [], true],
    ["127.0.0.1", [], false],
    ["127.0.0.1", ["127.0.0.0/8"], true],
    ["::ffff:127.0.0.1", ["127.0.0.0/8"], true], // mapped: judged by its IPv4 address
    ["::1", ["127.0.0.0/8"], false],
    ["::1", ["::1"], true],
    ["10.2.3.4", ["10.0.0.0/16"], false],
    ["10.0.3.4", ["10.0.0.0/16"], true],
    ["169.254.169.254", ["10.0.0.0/8"], false],
    ["169.254.169.254", ["169.254.169.254/32"], true],
    ["fd00:ec2::254", ["fd00::/8"], true],
    ["192.168.1.1", ["0.0.0.0/0"], true],
  ])("%s with %j → %s", (address, allow, ok) => {
    expect(checkAddress(address, parseAllowList(allow)).ok).toBe(ok);
  });

  it("names the kind of address and the key to change", () => {
    expect(checkAddress("10.0.0.1", [])).toEqual({ ok: false, kind: "private", reason: "10.0.0.1 is a private address (allow its range in outbound.allow_private to use it)" });
  });

  it("parses CIDRs, a bare address as a single one, and refuses others", () => {
    expect(parseCidr("10.1.2.3/8")).toMatchObject({ v: 4, bits: 8 });
    expect(cidrContains("10.1.2.3/8", "10.200.0.1")).toBe(true);
    expect(cidrContains("192.168.0.0/16", "192.169.0.1")).toBe(false);
    expect(cidrContains("fd00::/8", "fdff::1")).toBe(true);
    expect(cidrContains("127.0.0.1", "127.0.0.2")).toBe(false);
    for (const bad of ["10.0.0.0/33", "::/129", "10.0.0/8", "localhost", "", "10.0.0.0/"]) expect(() => parseCidr(bad)).toThrow(/not a CIDR range/);
  });
});

describe("outbound.allow_private", () => {
  it("defaults to empty; the file takes a JSON list, the environment a comma list", () => {
    expect(loadConfig({ env: {} as NodeJS.ProcessEnv, file: null }).outbound.allowPrivate).toEqual([]);
    expect(loadConfig({ env: { SIGHTDESK_OUTBOUND__ALLOW_PRIVATE: "127.0.0.0/8, 10.0.0.0/8,,fd00::/8" } as unknown as NodeJS.ProcessEnv, file: null }).outbound.allowPrivate).toEqual(["127.0.0.0/8", "10.0.0.0/8", "fd00::/8"]);
  });

  it("refuses what is not a CIDR, naming the key", () => {
    expect(() => loadConfig({ env: { SIGHTDESK_OUTBOUND__ALLOW_PRIVATE: "10.0.0.0/8,intranet" } as unknown as NodeJS.ProcessEnv, file: null })).toThrow(/outbound\.allow_private: expected a list of CIDR ranges/);
  });
});

describe("the send path: resolve, check every address, connect to the checked one", () => {
  let server: http.Server;
  let port = 0;
  const seen: Array<{ host: string | undefined; url: string | undefined; headers: http.IncomingHttpHeaders }> = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ host: req.headers.host, url: req.url, headers: req.headers });
      req.resume();
      req.on("end", () => {
        if (req.url === "/fail") res.writeHead(500, { "content-type": "text/plain" }).end("db password is hunter2");
        else if (req.url === "/redirect") res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
        else res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** A DNS that answers from a table (and counts its questions). */
  function dns(table: Record<string, string[]>) {
    const asked: string[] = [];
    const resolve: Resolver = async (name) => {
      asked.push(name);
      const addresses = table[name];
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
      return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    };
    return { asked, resolve };
  }
  const target = (url: string) => ({ url, kind: "generic", secret: "k" });
  const item = { id: "d-1", event: "webhook.test", payload: '{"event":"webhook.test"}' };
  const allowLoopback = parseAllowList(["127.0.0.0/8"]);

  it("refuses a name that resolves to a private address, before connecting, and says why", async () => {
    const { resolve } = dns({ "hooks.example.com": ["127.0.0.1"] });
    const before = seen.length;
    const r = await sendOnce(pinnedFetch({ allow: [], resolve }), target(`http://hooks.example.com:${port}/ok`), item);
    expect(r).toMatchObject({ ok: false, statusCode: null, error: "refused: hooks.example.com resolves to 127.0.0.1 is a loopback address (allow its range in outbound.allow_private to use it)" });
    expect(seen.length).toBe(before);
  });

  it("refuses when any one of the addresses is not allowed (checks every address)", async () => {
    const { resolve } = dns({ "mixed.example.com": ["93.184.216.34", "10.0.0.7"] });
    await expect(resolveOutbound("https://mixed.example.com/x", { allow: [], resolve })).rejects.toThrow(/10\.0\.0\.7 is a private address/);
    await expect(resolveOutbound("http://169.254.169.254/latest", { allow: [], resolve })).rejects.toBeInstanceOf(OutboundBlockedError);
    await expect(resolveOutbound("http://[::ffff:a9fe:a9fe]/", { allow: [], resolve })).rejects.toThrow(/metadata/);
    await expect(resolveOutbound("http://nowhere.invalid/", { allow: [], resolve })).rejects.toThrow(/cannot resolve nowhere\.invalid \(ENOTFOUND\)/);
    expect(await resolveOutbound("https://public.example.com/", { allow: [], resolve: dns({ "public.example.com": ["93.184.216.34"] }).resolve })).toEqual({ address: "93.184.216.34", family: 4 });
  });

  it("with the range allowed, connects to the address it checked (pinned: the name is resolved once), keeping the Host header", async () => {
    const { asked, resolve } = dns({ "hooks.example.com": ["127.0.0.1"] });
    const r = await sendOnce(pinnedFetch({ allow: allowLoopback, resolve }), target(`http://hooks.example.com:${port}/ok?x=1`), item);
    expect(r).toMatchObject({ ok: true, statusCode: 200, response: '{"ok":true}' });
    const got = seen[seen.length - 1];
    expect(got).toMatchObject({ host: `hooks.example.com:${port}`, url: "/ok?x=1" });
    expect(got.headers["x-sightdesk-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(got.headers["x-sightdesk-timestamp"]).toMatch(/^\d{10}$/);
    // hooks.example.com does not exist in the real DNS: the socket can only have used the checked address
    expect(asked).toEqual(["hooks.example.com"]);
  });

  it("a DNS answer that changes after the check (rebinding) cannot redirect the request", async () => {
    let calls = 0;
    const rebinding: Resolver = async () => (calls++ === 0 ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "169.254.169.254", family: 4 }]);
    const r = await sendOnce(pinnedFetch({ allow: allowLoopback, resolve: rebinding }), target(`http://rebind.example.com:${port}/ok`), item);
    expect(r).toMatchObject({ ok: true, statusCode: 200 });
    expect(calls).toBe(1);
  });

  it("stores no reply text of a failed request, and does not follow redirects", async () => {
    const f = pinnedFetch({ allow: allowLoopback });
    const failed = await sendOnce(f, target(`http://127.0.0.1:${port}/fail`), item);
    expect(failed).toEqual({ ok: false, statusCode: 500, error: "HTTP 500", durationMs: expect.any(Number) });
    expect(JSON.stringify(failed)).not.toContain("hunter2");
    const before = seen.length;
    const redirected = await sendOnce(f, target(`http://127.0.0.1:${port}/redirect`), item);
    expect(redirected).toMatchObject({ ok: false, statusCode: 302, error: "HTTP 302" });
    expect(seen.length).toBe(before + 1);
  });

  it("a connection failure is its error code", async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = http.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    expect(await sendOnce(pinnedFetch({ allow: allowLoopback }), target(`http://127.0.0.1:${closed}/`), item)).toMatchObject({ ok: false, error: "request failed (ECONNREFUSED)" });
  });

  it("a DNS lookup that never answers is cut off by the timeout too (the attempt outlived its claim)", async () => {
    const silent: Resolver = () => new Promise(() => undefined);
    const r = await sendOnce(pinnedFetch({ allow: allowLoopback, resolve: silent }), target("http://slow-dns.example.com/"), item, 200);
    expect(r).toMatchObject({ ok: false, statusCode: null, error: "timed out after 200 ms" });
  });

  it("a hanging receiver is cut off by the timeout", async () => {
    const hang = http.createServer(() => undefined);
    await new Promise<void>((r) => hang.listen(0, "127.0.0.1", r));
    try {
      const r = await sendOnce(pinnedFetch({ allow: allowLoopback }), target(`http://127.0.0.1:${(hang.address() as AddressInfo).port}/`), item, 200);
      expect(r).toMatchObject({ ok: false, statusCode: null, error: "timed out after 200 ms" });
    } finally {
      hang.closeAllConnections();
      hang.close();
    }
  });
});
