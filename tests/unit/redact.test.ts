import { describe, expect, it } from "vitest";
import { redactText, redactValue, storedArguments } from "@/lib/ingest/redact";
import { plain, SECRET_FORMS } from "../support/secrets";

describe("redaction of stored text", () => {
  it.each([
    ["Authorization: Bearer abcdefgh12345678", "Authorization: Bearer [redacted]"],
    ["key sk-proj-AbCdEf1234567890xyz leaked", "key [redacted] leaked"],
    ["sk-ant-api03-AAAAAAAAAAAAAAAAAAAA", "[redacted]"],
    ["stripe sk_live_51HabcdefGHIJKL", "stripe [redacted]"],
    ["gh token ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ123456", "gh token [redacted]"],
    ["aws AKIAIOSFODNN7EXAMPLE here", "aws [redacted] here"],
    ["OPENAI_API_KEY=sk-abc and DB_PASSWORD=hunter2hunter2", "OPENAI_API_KEY=[redacted] and DB_PASSWORD=[redacted]"],
  ])("masks %s", (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it("keeps serialized JSON valid", () => {
    const json = JSON.stringify({ out: 'export GITHUB_TOKEN="ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ123456"\nSECRET_KEY=abcdef123456\\n' });
    expect(() => JSON.parse(redactText(json))).not.toThrow();
    expect(redactText(json)).not.toContain("ghp_ABCDEF");
  });

  it("drops credential keys from objects and leaves ordinary text alone", () => {
    expect(redactValue({ headers: { Authorization: "Bearer x", "X-Api-Key": "k", accept: "json" }, note: "the token count was 12" })).toEqual({
      headers: { accept: "json" },
      note: "the token count was 12",
    });
  });
});


describe("credential forms", () => {
  it.each(SECRET_FORMS)("masks %s as text and inside serialized JSON", (form, secret) => {
    expect(redactText(`before ${plain(form)} after`)).not.toContain(secret);
    const serialized = JSON.stringify({ output: `line one\n${plain(form)}\nline three` });
    const masked = redactText(serialized);
    expect(masked).not.toContain(secret);
    expect(() => JSON.parse(masked)).not.toThrow();
  });

  it("masks tool arguments by key name, as objects and as JSON text, keeping the key", () => {
    const args = { url: "https://example.com", api_key: "args-key-1", nested: { Password: "args-pw-2", headers: { "X-API-KEY": "args-hdr-3" } }, max_tokens: 12 };
    const stored = storedArguments(args);
    for (const secret of ["args-key-1", "args-pw-2", "args-hdr-3"]) expect(stored).not.toContain(secret);
    expect(JSON.parse(stored)).toMatchObject({ url: "https://example.com", api_key: "[redacted]", max_tokens: 12 });
    const asText = storedArguments(JSON.stringify(args));
    for (const secret of ["args-key-1", "args-pw-2", "args-hdr-3"]) expect(asText).not.toContain(secret);
    expect(JSON.parse(JSON.parse(asText) as string)).toMatchObject({ api_key: "[redacted]", url: "https://example.com" });
  });

  it("leaves ordinary text and counters alone", () => {
    for (const text of ["max_tokens: 4096", "input_tokens=1200", "the token count was 12", "password reset link sent", '{"tokens": 5}']) {
      expect(redactText(text)).toBe(text);
    }
  });
});
