import { describe, expect, it } from "vitest";
import { shellQuote, snippets, testCall, TOKEN_PLACEHOLDER } from "@/components/connect/snippets";
import { callSchema } from "@/lib/ingest/schema";
import { parseJsonExact } from "@/lib/wire/json";

describe("Connect snippets", () => {
  const call = testCall(Date.UTC(2026, 11, 2), "abc");

  it("fill in the server and token, or a placeholder", () => {
    const s = snippets("https://sd.example.com/", "tok123", call);
    expect(s.proxy).toBe("npx sightdesk proxy --url 'https://sd.example.com' --token 'tok123'");
    expect(s.proxyEnv).toContain("OPENAI_BASE_URL=http://127.0.0.1:8788/openai/v1");
    expect(s.proxyEnv).toContain("ANTHROPIC_BASE_URL=http://127.0.0.1:8788/anthropic");
    expect(s.serverProxy).toContain("OPENAI_BASE_URL=https://sd.example.com/proxy/openai/v1");
    expect(s.serverProxy).toContain("X-SightDesk-Token: tok123");
    expect(s.otlp).toBe("export OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=https://sd.example.com/api/otlp/v1/traces\nexport OTEL_EXPORTER_OTLP_HEADERS='Authorization=Bearer tok123'");
    expect(s.agentsightForward).toBe("npx sightdesk forward ~/.agentsight --url 'https://sd.example.com' --token 'tok123'");
    expect(snippets("http://h:3000", null, call).curl).toContain(`'Authorization: Bearer ${TOKEN_PLACEHOLDER}'`);
  });

  it("send a test call the ingest contract accepts, with exact integer times", () => {
    const s = snippets("http://h:3000", "t", call);
    const body = /-d '([^']+)'/.exec(s.curl)![1];
    expect(body).toMatch(/"start_ns":1796169600000000000,/);
    const parsed = callSchema.safeParse(parseJsonExact(body));
    expect(parsed.success).toBe(true);
    expect(s.curl.split("\n")[0]).toBe("curl -sS -X POST 'http://h:3000/api/ingest/calls' \\");
  });

  it("quote shell words", () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
