import { describe, expect, it } from "vitest";
import { redactText, redactValue } from "@/lib/ingest/redact";

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
