// Ingest bodies are prepared on a worker thread: parsing, validating and masking 10 MiB takes a
// few hundred milliseconds of CPU, and on the request thread that would stall every other request
// (health checks, the dashboard) for as long. Small JSON bodies go there too: the request thread
// is what limits ingest of one call per request, and preparing is about a fifth of its work per
// call, while the worker runs on another core (BENCHMARKS.md). Small OTLP exports of few messages are prepared
// inline, where the round trip would cost more than the work. If the worker cannot start (e.g.
// outside the source tree), everything is prepared inline.
import fs from "node:fs";
import { Worker } from "node:worker_threads";
import { ApiError } from "./errors";
import { prepareIngestBytes, type IngestKind, type PreparedBatch } from "./ingest";
import type { WorkerReply, WorkerRequest } from "./ingestWorker";
import { prepareOtlpBody, type OtlpEncoding } from "./otlpBody";
import { ingestWorkerEntry } from "./ingestWorkerFiles";
import type { OtlpBatch } from "../otlp/prepare";
import { asBuffer, exportHoldsMoreMessagesThan } from "../otlp/protobuf";
import { scanContainer, skipByteSpace } from "../json";

/** OTLP exports from this size on go to the worker. */
export const OFFLOAD_BYTES = 256 * 1024;
/**
 * And smaller ones of more messages than this (protobuf messages, JSON objects and arrays): 256 KiB
 * of empty spans are 131,000 spans, ≈ 200 ms to prepare; a real export of that size a few hundred.
 */
export const OFFLOAD_MESSAGES = 2_000;

/** Whether an OTLP export is worth the worker's round trip (else it is prepared on the request thread). */
export function otlpGoesToWorker(encoding: OtlpEncoding, bytes: Uint8Array): boolean {
  if (bytes.length >= OFFLOAD_BYTES) return true;
  if (encoding === "protobuf") return exportHoldsMoreMessagesThan(bytes, OFFLOAD_MESSAGES);
  const text = asBuffer(bytes);
  const at = skipByteSpace(text, 0);
  if (text[at] !== 0x7b && text[at] !== 0x5b) return false; // not an object or array: refused at once inline
  const scan = scanContainer(text, at + 1);
  return scan !== null && scan.containers > OFFLOAD_MESSAGES;
}

type Pending = { resolve: (reply: Extract<WorkerReply, { batch: unknown }>) => void; reject: (e: unknown) => void };

/** A prepared ingest body, and its bytes (handed back by the worker, which had them moved to it). */
type PreparedBody = { batch: PreparedBatch; body: Buffer };

/**
 * What a postMessage of `body` may move instead of copying: its memory when it is all of it. A
 * large body is a fresh allocation, whose copy costs its pages' faults again; a small one is a
 * slice of Node's shared pool, and must be copied.
 */
const movable = (body: Uint8Array): ArrayBuffer[] =>
  body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer ? [body.buffer] : [];

class IngestWorker {
  private worker: Worker | null = null;
  private unavailable = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly entry: string) {}

  start(): Worker | null {
    if (this.worker || this.unavailable) return this.worker;
    if (!fs.existsSync(this.entry)) {
      this.unavailable = true;
      return null;
    }
    const worker = new Worker(this.entry);
    worker.unref(); // never keeps a process (a CLI, a test) alive
    worker.on("message", (reply: WorkerReply) => this.settle(reply));
    worker.on("error", (e) => this.fail(worker, e));
    worker.on("exit", (code) => this.fail(worker, new Error(`ingest worker exited with code ${code}`)));
    return (this.worker = worker);
  }

  private settle(reply: WorkerReply): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    if ("batch" in reply) p.resolve(reply);
    else if (reply.error.status < 500) p.reject(new ApiError(reply.error.status, reply.error.message));
    else p.reject(new Error(reply.error.message));
  }

  /** A crashed worker fails what it held; the next large body starts a new one. */
  private fail(worker: Worker, e: unknown): void {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  /** `body` is moved to the worker when it can be (unusable here until the answer hands it back). */
  prepare(kind: IngestKind, body: Buffer, whole: boolean): Promise<PreparedBody> | null {
    const reply = this.send((id) => ({ id, kind, body, whole }), movable(body));
    return reply?.then(({ batch, body: back }) => ({ batch: batch as PreparedBatch, body: back ? Buffer.from(back.buffer, back.byteOffset, back.byteLength) : body })) ?? null;
  }

  prepareOtlp(encoding: OtlpEncoding, bytes: Uint8Array): Promise<OtlpBatch> | null {
    return this.send((id) => ({ id, kind: "otlp", encoding, bytes }))?.then((reply) => reply.batch as OtlpBatch) ?? null;
  }

  private send(request: (id: number) => WorkerRequest, transfer: ArrayBuffer[] = []): Promise<Extract<WorkerReply, { batch: unknown }>> | null {
    const worker = this.start();
    if (!worker) return null;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage(request(id), transfer);
    });
  }
}

// One worker per process, kept on globalThis: Next.js may load this module once per route bundle.
const holder = globalThis as unknown as { sightdeskIngestWorker?: IngestWorker };

function ingestWorker(): IngestWorker {
  return (holder.sightdeskIngestWorker ??= new IngestWorker(ingestWorkerEntry()));
}

/** Starts the worker now, so that the first ingest request does not wait for it to load. */
export function startIngestWorker(): void {
  ingestWorker().start();
}

/**
 * `inline()`'s result, computed by `send` on the worker instead when it runs. Receiving the result
 * (copying it from the worker) and storing it are each tens of milliseconds for a large body:
 * other requests are served between the two.
 */
async function onWorker<T>(send: (w: IngestWorker) => Promise<T> | null, inline: () => T): Promise<T> {
  const pending = send(ingestWorker());
  if (!pending) return inline();
  const result = await pending;
  await new Promise((resolve) => setImmediate(resolve));
  return result;
}

/**
 * The prepared batch of an ingest body (UTF-8 JSON): on the worker (here when it cannot run),
 * which hands the bytes back for `whole`. The worker's calls come thin; `whole` prepares them
 * again in full.
 */
export async function prepareIngest(kind: IngestKind, body: Buffer): Promise<PreparedBatch> {
  let bytes = body;
  const prepare = async (whole: boolean) => {
    const prepared = await onWorker((w) => w.prepare(kind, bytes, whole), () => ({ batch: prepareIngestBytes(kind, bytes), body: bytes }));
    bytes = prepared.body;
    return prepared.batch;
  };
  const batch = await prepare(false);
  return batch.kind === "events" ? batch : { ...batch, whole: async () => ((await prepare(true)) as typeof batch).calls };
}

/** The prepared items of an OTLP export's (inflated) bytes: on the worker when large, else here. */
export async function prepareOtlpOffloaded(encoding: OtlpEncoding, bytes: Uint8Array): Promise<OtlpBatch> {
  const inline = () => prepareOtlpBody(encoding, bytes);
  return otlpGoesToWorker(encoding, bytes) ? onWorker((w) => w.prepareOtlp(encoding, bytes), inline) : inline();
}
