import { describe, expect, it } from "vitest";
import { judgeToolResult } from "@/lib/detect/toolResult";

describe("judgeToolResult: unauthorized_action", () => {
  it("flags permission denied output as unauthorized_action, not tool_failure", () => {
    const response = "cat: /etc/shadow: Permission denied\nExit code 1";
    expect(judgeToolResult({ response, isError: true })).toEqual({
      type: "unauthorized_action",
      detail: { reason: "Permission denied", snippet: response },
    });
  });

  it.each([
    ["EPERM: operation not permitted, unlink '/x'", "EPERM"],
    ["Error: EACCES, open '/root/.ssh/id_rsa'", "EACCES"],
    ["rm: cannot remove 'x': Operation not permitted", "Operation not permitted"],
    ["Sandbox denied write access to /usr", "Sandbox denied"],
    ["This command was denied by policy", "denied by policy"],
  ])("matches %j", (response, reason) => {
    expect(judgeToolResult({ response })).toMatchObject({ type: "unauthorized_action", detail: { reason } });
  });

  it("reads the error text too", () => {
    expect(judgeToolResult({ response: null, error: "spawn EACCES" })).toEqual({
      type: "unauthorized_action",
      detail: { reason: "EACCES", snippet: "spawn EACCES" },
    });
  });

  it("does not read a result that says it succeeded as denied: the words are its content", () => {
    // an agent reading source code: before, unauthorized_action
    const source = "if (e.code === 'EACCES') retry();\n// permission denied: ask for sudo";
    expect(judgeToolResult({ response: source, success: true })).toBeNull();
    expect(judgeToolResult({ response: source, isError: false })).toBeNull();
    expect(judgeToolResult({ response: source })).toMatchObject({ type: "unauthorized_action" }); // said nothing: as before
  });

  it("does not match EPERM inside a longer word", () => {
    expect(judgeToolResult({ response: "SUPEREPERMISSIVE mode enabled" })).toBeNull();
  });
});

describe("judgeToolResult: tool_failure", () => {
  it("flags is_error", () => {
    expect(judgeToolResult({ response: "file not found", isError: true })).toEqual({
      type: "tool_failure",
      detail: { reason: "is_error", snippet: "file not found" },
    });
    expect(judgeToolResult({ response: { isError: true, content: [] } })?.detail.reason).toBe("is_error");
  });

  it("flags success: false", () => {
    expect(judgeToolResult({ response: "no match", success: false })?.detail.reason).toBe("success_false");
    expect(judgeToolResult({ response: '{"success":false,"message":"nope"}' })?.detail.reason).toBe("success_false");
  });

  it('flags a top-level "error" key with a truthy value, as object or JSON text', () => {
    expect(judgeToolResult({ response: { error: "not found" } })?.detail.reason).toBe("error_key");
    expect(judgeToolResult({ response: ' {"error": {"code": 404}} ' })).toEqual({
      type: "tool_failure",
      detail: { reason: "error_key", snippet: ' {"error": {"code": 404}} ' },
    });
    expect(judgeToolResult({ response: { error: null, result: 1 } })).toBeNull();
    expect(judgeToolResult({ response: '{"error":"","ok":true}' })).toBeNull();
    expect(judgeToolResult({ response: { result: { error: "nested is not top-level" } } })).toBeNull();
  });

  it("flags an error reported beside the result", () => {
    expect(judgeToolResult({ response: "", error: "tool crashed" })).toEqual({
      type: "tool_failure",
      detail: { reason: "error", snippet: "tool crashed" },
    });
  });

  it("flags non-zero exit codes in JSON", () => {
    expect(judgeToolResult({ response: { exit_code: 1, stdout: "" } })?.detail.reason).toBe("exit_code 1");
    expect(judgeToolResult({ response: '{"returncode": 2}' })?.detail.reason).toBe("exit_code 2");
    expect(judgeToolResult({ response: { exitCode: "127" } })?.detail.reason).toBe("exit_code 127");
    expect(judgeToolResult({ response: '{"output":"boom","metadata":{"exit_code":1}}' })?.detail.reason).toBe(
      "exit_code 1",
    );
    expect(judgeToolResult({ response: { exit_code: 0, stdout: "ok" } })).toBeNull();
    expect(judgeToolResult({ response: { exitCode: null } })).toBeNull();
  });

  it.each([
    ["exit code: 1", 1],
    ["Exit code 2\nls: cannot access 'x': No such file or directory", 2],
    ["sh: foo: command not found\nexited with code 127", 127],
    ["Process exited with code 1", 1],
    ["Command failed with exit code 3", 3],
    ["Traceback ...\n[exit status 1]", 1],
    ["compiling... (exit code 2)", 2],
  ])("flags the exit code in %j", (response, code) => {
    expect(judgeToolResult({ response })).toMatchObject({
      type: "tool_failure",
      detail: { reason: `exit_code ${code}` },
    });
  });

  it("caps the snippet at 300 chars", () => {
    const long = "x".repeat(1000);
    expect(judgeToolResult({ response: long, isError: true })?.detail.snippet).toHaveLength(300);
  });
});

describe("judgeToolResult: success", () => {
  it.each([
    "Fixed the error handling in parser.ts; no errors remain.",
    "The CLI returns exit code 1 when a file is missing.",
    "Exit code: 0\nWall time: 0.2 seconds",
    "Process exited with code 0",
  ])("ignores %j", (response) => {
    expect(judgeToolResult({ response })).toBeNull();
  });

  it("ignores successful structured results", () => {
    expect(judgeToolResult({ response: [{ type: "text", text: "3 files changed" }], isError: false })).toBeNull();
    expect(judgeToolResult({ response: { status: "ok", errors_fixed: 2 }, success: true })).toBeNull();
    expect(judgeToolResult({ response: null })).toBeNull();
    expect(judgeToolResult({ response: '{"not": "closed"' })).toBeNull();
  });
});
