// A process asked to stop hands its background work over first (lib/server/shutdown.ts), and
// still stops: through Next's handler when it has one, by the signal itself when nothing else
// handles it (NEXT_MANUAL_SIG_HANDLE).
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const CHILD = path.join(__dirname, "../fixtures/shutdownChild.ts");

/** Starts the child, sends SIGTERM once it is up, and resolves with how it ended. */
function stopChild(...args: string[]): Promise<{ stdout: string; code: number | null; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
    if (text.includes("ready")) child.kill("SIGTERM");
  });
  const stuck = setTimeout(() => child.kill("SIGKILL"), 10_000);
  return new Promise((resolve) => child.on("exit", (code, signal) => (clearTimeout(stuck), resolve({ stdout, code, signal }))));
}

describe("SIGTERM", () => {
  it("with a handler that exits (Next's): the exit waits for the hand-over", { timeout: 20_000 }, async () => {
    expect(await stopChild("next-handler")).toEqual({ stdout: "ready\nhanded over\n", code: 0, signal: null });
  });

  it("with no other handler: the process ends by the signal once the hand-over is done, not never", { timeout: 20_000 }, async () => {
    expect(await stopChild()).toEqual({ stdout: "ready\nhanded over\n", code: null, signal: "SIGTERM" });
  });
});
