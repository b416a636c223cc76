import { describe, expect, it } from "vitest";
import { redactText, redactValue, storedArguments, storedResult } from "@/lib/ingest/redact";
import { chainNodes } from "@/lib/ingest/messages";
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

  it("keeps serialized JSON valid when a credential key holds no string (before, the call could not be read back: 500)", () => {
    const parts = JSON.stringify([{ type: "tool_call_response", id: "c1", response: { nextPageToken: null, items: [1], password: ["hunter2hunter2"], api_key: { value: "plainsecret99" }, token: 12345678901, ok: true } }]);
    const masked = redactText(parts);
    expect(() => JSON.parse(masked)).not.toThrow();
    expect(JSON.parse(masked)[0].response).toMatchObject({ nextPageToken: null, items: [1], token: "[redacted]", ok: true });
    // inside a string holding JSON (a tool's output): escaped quotes kept as they were
    const nested = JSON.stringify({ out: JSON.stringify({ token: 987654321, refresh_token: null }) });
    expect(JSON.parse(JSON.parse(redactText(nested)).out)).toEqual({ token: "[redacted]", refresh_token: null });
    // a quoted key with a bare value in plain text
    expect(redactText('"password": hunter2 and more')).toBe('"password": "[redacted]" and more');
  });

  it("drops credential keys from objects and leaves ordinary text alone", () => {
    expect(redactValue({ headers: { Authorization: "Bearer x", "X-Api-Key": "k", accept: "json" }, note: "the token count was 12" })).toEqual({
      headers: { accept: "json" },
      note: "the token count was 12",
    });
  });
});


describe("masking stays within what it masks", () => {
  it("a PEM key's BEGIN and END in two strings of serialized JSON: the JSON between them is kept (it was cut out, and the call could not be read back)", () => {
    const parts = JSON.stringify([{ type: "text", content: "x -----BEGIN PRIVATE KEY-----" }, { type: "tool_call", id: "t", name: "n", arguments: { pem: { end: "-----END PRIVATE KEY-----" } } }]);
    expect(JSON.parse(redactText(parts))).toEqual(JSON.parse(parts));
  });

  it("a single-quoted value ends at a line end written as an escape, and a test log's PASS is no credential", () => {
    const serialized = JSON.stringify({ out: "getpass('Password: ')\nprint('done')" });
    expect(JSON.parse(redactText(serialized)).out).toContain("print('done')");
    expect(redactText("PASS: test_login\nFAIL: test_logout")).toBe("PASS: test_login\nFAIL: test_logout");
    expect(redactText("SMTP_PASS=hunter2xx")).toBe("SMTP_PASS=[redacted]");
  });
});

describe("what a credential key of a tool's output holds", () => {
  const output = { db_password: { sensitive: true, type: "string", value: "Tf-Sup3r-S3cret" }, password: ["hunter2hunter2"], api_key: { value: "plainsecret99" }, region: "eu-north-1" };
  it("is masked whole, as a structure or as JSON text (terraform output -json), keeping the rest", () => {
    for (const stored of [storedResult(output), storedResult(JSON.stringify(output))]) {
      for (const secret of ["Tf-Sup3r-S3cret", "hunter2hunter2", "plainsecret99"]) expect(stored).not.toContain(secret); // before, kept word for word
      const read = JSON.parse(stored) as unknown;
      expect(typeof read === "string" ? JSON.parse(read) : read).toEqual({ db_password: "[redacted]", password: "[redacted]", api_key: "[redacted]", region: "eu-north-1" });
    }
    expect(storedResult("plain text, token=abc12345 here")).toBe("plain text, token=[redacted] here");
  });

  it("is masked in a stored message's tool result too", () => {
    const { nodes } = chainNodes("conv-redact", [{ role: "tool", parts: [{ type: "tool_call_response", id: "t1", response: output }] }], null, 0);
    for (const secret of ["Tf-Sup3r-S3cret", "hunter2hunter2", "plainsecret99"]) expect(nodes[0].parts).not.toContain(secret);
    expect(JSON.parse(nodes[0].parts)[0].response).toMatchObject({ db_password: "[redacted]", region: "eu-north-1" });
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

  it("masks headers named like a provider's key (Azure's subscription and function keys), keeping keys that are no credential", () => {
    const stored = storedArguments({ headers: { "Ocp-Apim-Subscription-Key": "apim-0016", "x-functions-key": "fn-0017", "Idempotency-Key": "req-42" }, monkey: "banana", primary_key: "id" });
    for (const secret of ["apim-0016", "fn-0017"]) expect(stored).not.toContain(secret);
    expect(JSON.parse(stored)).toMatchObject({ headers: { "Idempotency-Key": "req-42" }, monkey: "banana", primary_key: "id" });
  });

  it("masks whatever a credential key of tool arguments holds: a list, an object, a number", () => {
    const stored = storedArguments({ password: ["hunter2hunter2"], api_key: { value: "plainsecret99" }, pin: 1234, token: 99887766, refresh_token: null, secret: true });
    // before, the list and the object were kept word for word
    for (const secret of ["hunter2hunter2", "plainsecret99", "99887766"]) expect(stored).not.toContain(secret);
    expect(JSON.parse(stored)).toEqual({ password: "[redacted]", api_key: "[redacted]", pin: 1234, token: "[redacted]", refresh_token: null, secret: true });
  });

  it("masks the value of a credential given as a name/value pair (HAR headers), as arguments and in evidence", () => {
    const args = { url: "https://api.example", headers: [{ name: "Authorization", value: "Basic dXNlcjpzM2NyZXQ=" }, { name: "Accept", value: "json" }, { key: "X-Api-Key", value: "k-9f8e7d6c" }] };
    const stored = storedArguments(args);
    for (const secret of ["dXNlcjpzM2NyZXQ=", "k-9f8e7d6c"]) expect(stored).not.toContain(secret); // before, kept word for word
    expect(JSON.parse(stored).headers).toEqual([{ name: "Authorization", value: "[redacted]" }, { name: "Accept", value: "json" }, { key: "X-Api-Key", value: "[redacted]" }]);
    expect(storedArguments(JSON.stringify(args))).not.toContain("k-9f8e7d6c"); // as JSON text too
    expect(redactValue({ request: args })).toEqual({ request: { ...args, headers: [{ name: "Authorization", value: "[redacted]" }, { name: "Accept", value: "json" }, { key: "X-Api-Key", value: "[redacted]" }] } });
  });

  it("leaves ordinary text and counters alone", () => {
    for (const text of ["max_tokens: 4096", "input_tokens=1200", "the token count was 12", "password reset link sent", '{"tokens": 5}']) {
      expect(redactText(text)).toBe(text);
    }
  });
});
