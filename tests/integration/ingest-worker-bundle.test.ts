// The production server's ingest worker is the build's bundle (scripts/bundleIngestWorker.ts,
// run by `next build`), not the TypeScript sources: the bundle must exist after a build, be
// what a production process picks, and prepare bodies and refuse bad ones as the sources do.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ingestWorkerEntry, workerBundle } from "@/lib/api/ingestWorkerFiles";
import type { WorkerReply, WorkerRequest } from "@/lib/api/ingestWorker";

const ROOT = path.resolve(__dirname, "../..");

/** The worker's answer to one request. */
async function ask(entry: string, request: WorkerRequest): Promise<WorkerReply> {
  const worker = new Worker(entry);
  try {
    return await new Promise<WorkerReply>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the worker exited (code ${code}) without an answer`)));
      worker.postMessage(request);
    });
  } finally {
    await worker.terminate();
  }
}

const body = (calls: unknown[]) => new Uint8Array(Buffer.from(JSON.stringify(calls)));
const call = { call_id: "bundle-1", conversation_id: "bundle", start_ns: "1767268800000000000", input_messages: [{ role: "user", parts: [{ type: "text", content: "hi" }] }] };

describe("the ingest worker's bundle", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("is in the build folder, and a production process picks it", () => {
    vi.stubEnv("NODE_ENV", "production");
    const bundle = workerBundle(ROOT);
    expect(fs.existsSync(bundle)).toBe(true);
    expect(ingestWorkerEntry(ROOT)).toBe(bundle);
  });

  it("is not picked outside production, nor when the build has none", () => {
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-no-bundle-"));
    try {
      vi.stubEnv("NODE_ENV", "production");
      expect(ingestWorkerEntry(bare)).toBe(path.join(bare, "lib", "api", "ingestWorker.cjs"));
      vi.stubEnv("NODE_ENV", "development");
      expect(ingestWorkerEntry(ROOT)).toBe(path.join(ROOT, "lib", "api", "ingestWorker.cjs"));
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  it("prepares a call batch and refuses a malformed one with a 400 naming the fault", async () => {
    const bundle = workerBundle(ROOT);
    const good = await ask(bundle, { id: 1, kind: "calls", body: body([call]) });
    expect(good).toMatchObject({ id: 1, batch: { kind: "calls", calls: [{ call: { call_id: "bundle-1", start_ns: 1767268800000000000n } }] } });
    const bad = await ask(bundle, { id: 2, kind: "calls", body: body([{ ...call, start_ns: "soon" }]) });
    expect(bad).toMatchObject({ id: 2, error: { status: 400 } });
    expect((bad as { error: { message: string } }).error.message).toContain("start_ns");
  });
});
