// The ingest worker thread: prepares large ingest bodies (parse, validate, mask, hash, judge)
// so the request thread stays free for other requests meanwhile. Started by ingestOffload.ts
// through ingestWorkerFiles.ts (a bundle of this file in production); answers each message
// with the prepared batch or the error.
import { parentPort } from "node:worker_threads";
import { httpError } from "./errors";
import { prepareIngestBytes, thinnedBatch, type IngestKind } from "./ingest";
import { prepareOtlpBody, type OtlpEncoding } from "./otlpBody";

/**
 * `body`: UTF-8 JSON, handed back with the answer (the request thread may have moved it here, and
 * needs it again to prepare it `whole`); `whole`: calls as prepared, not `thinned` (after a
 * ThinHistoryError).
 */
export type WorkerRequest = { id: number; kind: IngestKind; body: Uint8Array; whole?: boolean } | { id: number; kind: "otlp"; encoding: OtlpEncoding; bytes: Uint8Array };
export type WorkerReply =
  | { id: number; batch: ReturnType<typeof prepareIngestBytes> | ReturnType<typeof prepareOtlpBody>; body?: Uint8Array }
  | { id: number; error: { status: number; message: string } };

parentPort?.on("message", (request: WorkerRequest) => {
  const { id } = request;
  let reply: WorkerReply;
  const handBack: ArrayBuffer[] = [];
  try {
    if (request.kind === "otlp") reply = { id, batch: prepareOtlpBody(request.encoding, request.bytes) };
    else {
      const { buffer, byteOffset, byteLength } = request.body;
      const batch = prepareIngestBytes(request.kind, Buffer.from(buffer, byteOffset, byteLength));
      reply = { id, batch: request.whole ? batch : thinnedBatch(batch), body: request.body };
      handBack.push(buffer as ArrayBuffer); // this thread's copy, or the one moved here: moved back
    }
  } catch (e) {
    reply = { id, error: httpError(e) ?? { status: 500, message: String((e as Error)?.stack ?? e) } };
  }
  parentPort!.postMessage(reply, handBack);
});
