// The ingest worker thread: prepares large ingest bodies (parse, validate, mask, hash, judge)
// so the request thread stays free for other requests meanwhile. Started by ingestOffload.ts
// through ingestWorker.cjs; answers each message with the prepared batch or the error.
import { parentPort } from "node:worker_threads";
import { httpError } from "./errors";
import { prepareIngestText, type IngestKind } from "./ingest";
import { prepareOtlpBody, type OtlpEncoding } from "./otlpBody";

export type WorkerRequest = { id: number; kind: IngestKind; text: string } | { id: number; kind: "otlp"; encoding: OtlpEncoding; bytes: Uint8Array };
export type WorkerReply =
  | { id: number; batch: ReturnType<typeof prepareIngestText> | ReturnType<typeof prepareOtlpBody> }
  | { id: number; error: { status: number; message: string } };

parentPort?.on("message", (request: WorkerRequest) => {
  const { id } = request;
  let reply: WorkerReply;
  try {
    reply = { id, batch: request.kind === "otlp" ? prepareOtlpBody(request.encoding, request.bytes) : prepareIngestText(request.kind, request.text) };
  } catch (e) {
    reply = { id, error: httpError(e) ?? { status: 500, message: String((e as Error)?.stack ?? e) } };
  }
  parentPort!.postMessage(reply);
});
