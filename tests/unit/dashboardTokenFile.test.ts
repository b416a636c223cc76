// Processes sharing a data directory that start together keep one dashboard token: the first
// one's (each makes the file's secret its directory's token row, so a file written over by a
// later process held a secret no row had, and the CLI was refused).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readOrCreateTokenFile } from "@/lib/auth/dashboardToken";

const CHILD = path.join(__dirname, "../fixtures/tokenFileChild.ts");

function readOrCreateIn(file: string, at: number): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, file, String(at)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
  return new Promise((resolve, reject) => child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}`)))));
}

describe("the dashboard token file", () => {
  it("is created once by processes starting together, and all of them keep its secret", async () => {
    for (let round = 0; round < 3; round++) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-token-file-"));
      const file = path.join(dir, ".dashboard_token");
      const at = Date.now() + 1_500; // after the children's start-up
      const secrets = await Promise.all(Array.from({ length: 6 }, () => readOrCreateIn(file, at)));
      expect(new Set(secrets).size).toBe(1);
      expect(secrets[0]).toMatch(/^[0-9a-f]{64}$/);
      expect(fs.readFileSync(file, "utf8").trim()).toBe(secrets[0]);
      expect(fs.readdirSync(dir)).toEqual([".dashboard_token"]);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("replaces a file that holds no token, and keeps a valid one", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-token-file-"));
    const file = path.join(dir, ".dashboard_token");
    fs.writeFileSync(file, "");
    const secret = readOrCreateTokenFile(file);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(readOrCreateTokenFile(file)).toBe(secret);
    expect(fs.readFileSync(file, "utf8").trim()).toBe(secret);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
