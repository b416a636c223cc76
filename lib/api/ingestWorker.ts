// The ingest worker thread: prepares large ingest bodies (parse, validate, mask, hash, judge)
// so the request thread stays free for other requests meanwhile. Started by ingestOffload.ts
// through ingestWorker.cjs; answers each message with the prepared batch or the error.
import { parentPort } from "node:worker_threads";
import { httpError } from "./errors";
import { prepareIngestText, type IngestKind } from "./ingest";

export type WorkerRequest = { id: number; kind: IngestKind; text: string };
export type WorkerReply =
  | { id: number; batch: ReturnType<typeof prepareIngestText> }
  | { id: number; error: { status: number; message: string } };

parentPort?.on("message", ({ id, kind, text }: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    reply = { id, batch: prepareIngestText(kind, text) };
  } catch (e) {
    reply = { id, error: httpError(e) ?? { status: 500, message: String((e as Error)?.stack ?? e) } };
  }
  parentPort!.postMessage(reply);
});
