// Alerts (SPEC §7): matching rules, retry schedule, HMAC signature and the bodies sent.
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  backoffMs,
  genericPayload,
  interruptionUrl,
  matchesRule,
  MAX_ATTEMPTS,
  parseList,
  publicBaseUrl,
  severitiesAtOrAbove,
  checkSignature,
  SIGNATURE_TOLERANCE_SECS,
  signBody,
  signedContent,
  verifySignature,
} from "@/lib/alerts/rules";
import { readPayload } from "@/lib/alerts/channels/payload";
import { slackEscape, slackPayload } from "@/lib/alerts/channels/slack";
import { renderRequest, sendOnce } from "@/lib/alerts/send";
import { stringifyExact } from "@/lib/wire/json";

const rule = (minSeverity: "critical" | "high" | "medium" | "low", types: string[] = [], agents: string[] = []) => ({ minSeverity, types, agents });
const crash = { severity: "critical", type: "agent_crash", agentName: "Claude" };
const rateLimit = { severity: "medium", type: "rate_limit", agentName: "Codex" };

describe("matching", () => {
  it("alerts at or above the severity threshold by weight", () => {
    expect(matchesRule(rule("high"), crash)).toBe(true);
    expect(matchesRule(rule("critical"), crash)).toBe(true);
    expect(matchesRule(rule("high"), rateLimit)).toBe(false);
    expect(matchesRule(rule("medium"), rateLimit)).toBe(true);
    expect(matchesRule(rule("low"), { ...rateLimit, severity: "low" })).toBe(true);
    expect(matchesRule(rule("medium"), { ...rateLimit, severity: "low" })).toBe(false);
    expect(matchesRule(rule("low"), { ...rateLimit, severity: "bogus" })).toBe(false);
    expect(severitiesAtOrAbove("high")).toEqual(["critical", "high"]);
    expect(severitiesAtOrAbove("low")).toEqual(["critical", "high", "medium", "low"]);
  });

  it("honours the type list (empty = every type)", () => {
    expect(matchesRule(rule("low", ["agent_crash", "dead_loop"]), crash)).toBe(true);
    expect(matchesRule(rule("low", ["dead_loop"]), crash)).toBe(false);
    expect(matchesRule(rule("low", []), crash)).toBe(true);
  });

  it("honours the agent list (empty = every agent; an unnamed agent matches only no list)", () => {
    expect(matchesRule(rule("low", [], ["Claude"]), crash)).toBe(true);
    expect(matchesRule(rule("low", [], ["Codex"]), crash)).toBe(false);
    expect(matchesRule(rule("low", [], ["Claude"]), { ...crash, agentName: null })).toBe(false);
    expect(matchesRule(rule("low"), { ...crash, agentName: null })).toBe(true);
    // every condition must hold
    expect(matchesRule(rule("critical", ["rate_limit"], ["Codex"]), rateLimit)).toBe(false);
  });

  it("reads stored lists defensively", () => {
    expect(parseList('["a","b"]')).toEqual(["a", "b"]);
    expect(parseList("not json")).toEqual([]);
    expect(parseList('{"a":1}')).toEqual([]);
    expect(parseList('["a",1]')).toEqual(["a"]);
  });
});

describe("backoff", () => {
  it("doubles from 2 s and gives up after the last attempt", () => {
    const schedule = Array.from({ length: MAX_ATTEMPTS }, (_, i) => backoffMs(i + 1));
    expect(schedule).toEqual([2000, 4000, 8000, 16000, 32000, null]);
    expect(MAX_ATTEMPTS).toBe(6);
  });

  it("is capped at 5 minutes", () => {
    expect(backoffMs(12, 20)).toBe(300_000);
  });
});

describe("signature", () => {
  const now = Date.UTC(2026, 11, 2, 12, 0, 0);
  const ts = now / 1000;

  it("is sha256=<hex HMAC-SHA256 of \"<timestamp>.<raw body>\"> with the secret", () => {
    const body = '{"event":"interruption.created","n":1234567890123456789}';
    const expected = crypto.createHmac("sha256", "s3cret").update(`${ts}.${body}`).digest("hex");
    expect(signedContent(ts, body)).toBe(`${ts}.${body}`);
    expect(signBody("s3cret", body, ts)).toBe(`sha256=${expected}`);
    const at = { nowMs: now };
    expect(verifySignature("s3cret", body, `sha256=${expected}`, String(ts), at)).toBe(true);
    expect(verifySignature("other", body, `sha256=${expected}`, String(ts), at)).toBe(false);
    expect(verifySignature("s3cret", `${body} `, `sha256=${expected}`, String(ts), at)).toBe(false);
    expect(verifySignature("s3cret", body, null, String(ts), at)).toBe(false);
    // the timestamp is part of what is signed: another one does not verify
    expect(verifySignature("s3cret", body, `sha256=${expected}`, String(ts + 1), at)).toBe(false);
    // the signature of the bare body (the old scheme) does not verify
    const bare = crypto.createHmac("sha256", "s3cret").update(body).digest("hex");
    expect(verifySignature("s3cret", body, `sha256=${bare}`, String(ts), at)).toBe(false);
  });

  it("receivers refuse a missing, malformed or stale timestamp (replays), within 5 minutes either way", () => {
    const body = "{}";
    const sig = (t: number) => signBody("k", body, t);
    expect(SIGNATURE_TOLERANCE_SECS).toBe(300);
    expect(checkSignature("k", body, sig(ts), undefined, { nowMs: now })).toMatchObject({ ok: false, reason: "missing" });
    expect(checkSignature("k", body, sig(ts), "12.5", { nowMs: now })).toMatchObject({ ok: false, reason: "bad_timestamp" });
    expect(checkSignature("k", body, sig(ts), `${now}`, { nowMs: now })).toMatchObject({ ok: false, reason: "bad_timestamp" }); // milliseconds, not seconds
    for (const t of [ts - 300, ts + 300]) expect(checkSignature("k", body, sig(t), String(t), { nowMs: now })).toEqual({ ok: true, timestamp: t });
    for (const t of [ts - 301, ts + 301]) expect(checkSignature("k", body, sig(t), String(t), { nowMs: now })).toMatchObject({ ok: false, reason: "expired", error: expect.stringMatching(/300 s window/) });
    expect(checkSignature("k", body, sig(ts - 30), String(ts - 30), { nowMs: now, toleranceSecs: 10 })).toMatchObject({ ok: false, reason: "expired" });
    expect(checkSignature("k", body, "sha256=00", String(ts), { nowMs: now })).toMatchObject({ ok: false, reason: "mismatch" });
  });

  it("signs the exact bytes sent (19-digit ns stay exact), with the timestamp of the attempt", () => {
    const record = { interruption_id: "i-1", severity: "critical", interruption_type: "agent_crash", occurred_at_ns: 1732000000123456789n };
    const payload = stringifyExact(genericPayload("interruption.created", record, "https://desk.example"));
    expect(payload).toContain('"occurred_at_ns":1732000000123456789');
    const { body, headers } = renderRequest({ url: "https://r.example", kind: "generic", secret: "k" }, { id: "d-1", event: "interruption.created", payload }, now + 999);
    expect(body).toBe(payload);
    expect(headers["X-SightDesk-Timestamp"]).toBe(String(ts));
    expect(headers["X-SightDesk-Signature"]).toBe(signBody("k", body, ts));
    expect(verifySignature("k", body, headers["X-SightDesk-Signature"], headers["X-SightDesk-Timestamp"], { nowMs: now })).toBe(true);
    expect(headers["X-SightDesk-Event"]).toBe("interruption.created");
    expect(JSON.parse(body).url).toBe("https://desk.example/interruptions/i-1");
  });
});

describe("payloads", () => {
  it("builds links from SIGHTDESK_PUBLIC_URL, else the local port", () => {
    expect(publicBaseUrl({ SIGHTDESK_PUBLIC_URL: "https://desk.example/" })).toBe("https://desk.example");
    expect(publicBaseUrl({ PORT: "4123" })).toBe("http://localhost:4123");
    expect(publicBaseUrl({})).toBe("http://localhost:3000");
    expect(interruptionUrl("https://d", "a/b")).toBe("https://d/interruptions/a%2Fb");
  });

  it("renders a short Slack message with severity, type, agent and link, escaping untrusted text", () => {
    const body = slackPayload(
      readPayload(
        JSON.stringify({
          event: "interruption.created",
          url: "https://desk.example/interruptions/i-1",
          interruption: { interruption_id: "i-1", severity: "critical", interruption_type: "agent_crash", agent_name: "<!channel> & co", session_id: "s-1" },
        }),
      ),
    );
    expect(body.text).toBe("[CRITICAL] agent_crash (new) on &lt;!channel&gt; &amp; co"); // the notification's text too (before, raw)
    const json = JSON.stringify(body.blocks);
    expect(json).toContain("&lt;!channel&gt; &amp; co");
    expect(json).not.toContain("<!channel>");
    expect(json).toContain("https://desk.example/interruptions/i-1");
    expect(json).toContain("agent_crash");
    expect(slackEscape("a<b>&")).toBe("a&lt;b&gt;&amp;");
  });

  it("a Slack webhook gets the Slack body and no signature", () => {
    const payload = stringifyExact(genericPayload("interruption.regressed", { interruption_id: "i-2", severity: "high", interruption_type: "auth_error", agent_name: "A" }, "http://x"));
    const { body, headers } = renderRequest({ url: "https://hooks.slack.example", kind: "slack", secret: null }, { id: "d", event: "interruption.regressed", payload });
    expect(JSON.parse(body).text).toBe("[HIGH] auth_error (regressed) on A");
    expect(headers["X-SightDesk-Signature"]).toBeUndefined();
    expect(headers["X-SightDesk-Timestamp"]).toBeUndefined();
  });
});

describe("one attempt", () => {
  const target = { url: "http://receiver.invalid/hook", kind: "generic", secret: "k" };
  const item = { id: "d", event: "interruption.created", payload: '{"a":1}' };

  it("2xx is delivered; other statuses and network errors fail with the status or error class only, never the reply text", async () => {
    expect(await sendOnce(async () => new Response("ok", { status: 200 }), target, item)).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(await sendOnce(async () => new Response("boom\n  secret internals", { status: 500 }), target, item)).toMatchObject({ ok: false, statusCode: 500, error: "HTTP 500" });
    expect(await sendOnce(async () => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } }), target, item)).toMatchObject({ ok: false, statusCode: 302, error: "HTTP 302" });
    const refused = await sendOnce(async () => {
      throw new TypeError("fetch failed: <html>leak</html>", { cause: { code: "ECONNREFUSED", message: "reply text" } });
    }, target, item);
    expect(refused).toMatchObject({ ok: false, statusCode: null, error: "request failed (ECONNREFUSED)" });
    const odd = await sendOnce(async () => {
      throw new Error("Parse Error: <reply bytes>");
    }, target, item);
    expect(odd).toMatchObject({ ok: false, error: "request failed (Error)" });
  });

  it("a hanging receiver is cut off by the timeout", async () => {
    const hang = (_url: string, init: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const started = Date.now();
    const r = await sendOnce(hang, target, item, 100);
    expect(r).toMatchObject({ ok: false, statusCode: null, error: "timed out after 100 ms" });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
