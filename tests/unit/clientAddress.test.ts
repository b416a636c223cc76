// The address sign-in attempts are counted under: X-Forwarded-For only from a peer that could be
// a reverse proxy, never from a client that reaches the server directly.
import { describe, expect, it } from "vitest";
import { clientAddress } from "@/lib/auth/throttle";

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
});
