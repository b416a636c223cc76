// The address sign-in attempts are counted under: X-Forwarded-For only from a peer that is a
// trusted reverse proxy, never from a client that reaches the server directly.
import { describe, expect, it } from "vitest";
import { clientAddress, proxyRanges, throttleAddress } from "@/lib/auth/throttle";
import { loadConfig } from "@/lib/config/load";
import { LOCAL_NETWORKS } from "@/lib/net/outbound";

const forwarded = new Headers({ "x-forwarded-for": "198.51.100.7, 10.0.0.2" });

describe("clientAddress", () => {
  it("believes X-Forwarded-For from a proxy on this host or the private network", () => {
    for (const proxy of ["127.0.0.1", "::1", "::ffff:127.0.0.1", "10.0.0.2", "192.168.1.9", "fd00::5"]) expect(clientAddress(forwarded, proxy), proxy).toBe("198.51.100.7");
    expect(clientAddress(new Headers({ "x-real-ip": "198.51.100.8" }), "127.0.0.1")).toBe("198.51.100.8");
    // a proxy that appends (nginx's $proxy_add_x_forwarded_for): what the client sent stays on the left
    expect(clientAddress(new Headers({ "x-forwarded-for": "1.2.3.4, 198.51.100.7" }), "127.0.0.1")).toBe("198.51.100.7");
    expect(clientAddress(new Headers({ "x-forwarded-for": "1.2.3.4, 198.51.100.7, 10.0.0.3" }), "10.0.0.2")).toBe("198.51.100.7");
    // all private (a client on the same network): the first
    expect(clientAddress(new Headers({ "x-forwarded-for": "192.168.1.20, 10.0.0.3" }), "127.0.0.1")).toBe("192.168.1.20");
  });
  it("counts a client that connects directly under its own address, whatever it sends", () => {
    expect(clientAddress(forwarded, "203.0.113.50")).toBe("203.0.113.50");
    expect(clientAddress(forwarded, "2001:db8::1")).not.toBe("198.51.100.7");
    expect(clientAddress(new Headers(), "127.0.0.1")).toBe("127.0.0.1");
  });
  it("believes only the configured proxies when server.trusted_proxies names them", () => {
    const proxies = proxyRanges(["10.0.0.2/32", "fd00::2/128"]);
    // a client on the private network, through the proxy, cannot put another address before its own
    const forged = new Headers({ "x-forwarded-for": "1.2.3.4, 10.0.0.9" });
    expect(clientAddress(forged, "10.0.0.2", proxies)).toBe("10.0.0.9");
    expect(clientAddress(forged, "::ffff:10.0.0.2", proxies)).toBe("10.0.0.9");
    expect(clientAddress(forged, "fd00::2", proxies)).toBe("10.0.0.9");
    // nor, reaching the server directly, choose one at all
    expect(clientAddress(forged, "10.0.0.9", proxies)).toBe("10.0.0.9");
    expect(clientAddress(forged, "127.0.0.1", [])).toBe("127.0.0.1");
    expect(clientAddress(forged, undefined, [])).toBe("unknown"); // no socket: never the header's word
    expect(clientAddress(forged, undefined, proxies)).toBe("unknown");
    expect(clientAddress(forged, null, proxyRanges(LOCAL_NETWORKS))).toBe("unknown");
    // only the mapped form counts as the IPv4 address it carries (not 6to4 and the like)
    expect(clientAddress(forged, "2002:a00:2::1", proxies)).toBe("2002:a00:2::1");
    // a range written in the mapped form is the IPv4 range
    expect(clientAddress(forged, "10.0.0.2", proxyRanges(["::ffff:10.0.0.2/128"]))).toBe("10.0.0.9");
    // every peer, written as IPv6 ranges: IPv4 peers too, in whatever form the socket names them
    for (const peer of ["203.0.113.50", "::ffff:203.0.113.50", "2001:db8::1"]) expect(clientAddress(forwarded, peer, proxyRanges(["::/0"])), peer).toBe("198.51.100.7");
    expect(clientAddress(forwarded, "203.0.113.50", proxyRanges(["::ffff:0:0/96"]))).toBe("198.51.100.7");
    expect(clientAddress(forwarded, "203.0.113.50", proxyRanges(["2001:db8::/32"]))).toBe("203.0.113.50");
    // the default: this host and the private networks
    expect(loadConfig({ env: {} as NodeJS.ProcessEnv, file: null }).server.trustedProxies).toEqual(LOCAL_NETWORKS);
    expect(clientAddress(forged, "10.0.0.2", proxyRanges(LOCAL_NETWORKS))).toBe("1.2.3.4");
  });
});

describe("throttleAddress", () => {
  it("counts an IPv6 client by its /64, an IPv4-mapped one as IPv4, and the rest as they are", () => {
    for (const a of ["2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", "[2001:0db8:0001:0002::9]", "2001:db8:1:2::7%eth0", "2001:db8:1:2::1.2.3.4"]) expect(throttleAddress(a), a).toBe("2001:db8:1:2::/64");
    expect(throttleAddress("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(throttleAddress("::1")).toBe("0:0:0:0::/64");
    expect(throttleAddress("fe80::1")).toBe("fe80:0:0:0::/64");
    expect(throttleAddress("2001:db8::")).toBe("2001:db8:0:0::/64");
    for (const a of ["::ffff:198.51.100.7", "::FFFF:c633:6407", "0:0:0:0:0:ffff:198.51.100.7"]) expect(throttleAddress(a), a).toBe("198.51.100.7");
    for (const a of ["198.51.100.7", "unknown", "not:an:address"]) expect(throttleAddress(a)).toBe(a);
  });
});
