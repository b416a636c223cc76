import { describe, expect, it } from "vitest";
import { providerErrorMessage, summarize } from "@/components/inbox/summary";

describe("providerErrorMessage", () => {
  it("reads OpenAI's {error: {message}}", () => {
    expect(providerErrorMessage('{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","code":"rate_limit_exceeded"}}')).toBe("Rate limit reached for gpt-4o");
  });
  it("reads Anthropic's {type: error, error: {type, message}}", () => {
    expect(providerErrorMessage('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toBe("Overloaded");
  });
  it("falls back to the error type when there is no message", () => {
    expect(providerErrorMessage('{"type":"error","error":{"type":"overloaded_error"}}')).toBe("overloaded_error");
  });
  it("reads {error: \"…\"} and {message: \"…\"}", () => {
    expect(providerErrorMessage('{"error":"upstream connect error"}')).toBe("upstream connect error");
    expect(providerErrorMessage(' {"message": "Internal server error", "code": 500} ')).toBe("Internal server error");
  });
  it("reads the message of a body cut short, escapes decoded", () => {
    const cut = '{"error":{"message":"This model\'s maximum context length is 8192 tokens. \\"Reduce\\" it","type":"invalid_request_error","param":"mess';
    expect(providerErrorMessage(cut)).toBe('This model\'s maximum context length is 8192 tokens. "Reduce" it');
  });
  it("leaves plain text and unrecognised JSON as they are", () => {
    expect(providerErrorMessage("socket hang up")).toBe("socket hang up");
    expect(providerErrorMessage('{"status":503}')).toBe('{"status":503}');
    expect(providerErrorMessage("{not json")).toBe("{not json");
  });
});

describe("summarize", () => {
  it("shows the provider's message, not the JSON body", () => {
    const detail = JSON.stringify({ status_code: 529, error_code: "overloaded_error", message: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' });
    expect(summarize(detail)).toBe("Overloaded");
  });
  it("keeps a client error text as it is", () => {
    expect(summarize(JSON.stringify({ status_code: null, message: "network timeout after 30 s" }))).toBe("network timeout after 30 s");
  });
});
