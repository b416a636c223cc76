// An OTLP trace export's bytes → the prepared ingest items: decoding (400 when the body is not
// an ExportTraceServiceRequest) and lib/otlp's mapping. Pure CPU work, so that large exports
// can be prepared on the ingest worker thread (ingestOffload.ts).
import { decodeTraceRequestJson } from "../otlp/json";
import { OtlpDecodeError, type OtlpTraceRequest } from "../otlp/model";
import { prepareOtlp, type OtlpBatch } from "../otlp/prepare";
import { asBuffer, decodeTraceRequestProtobuf } from "../otlp/protobuf";
import { ApiError } from "./errors";

export type OtlpEncoding = "protobuf" | "json";

export function decodeOtlp(encoding: OtlpEncoding, body: Uint8Array): OtlpTraceRequest {
  try {
    return encoding === "protobuf" ? decodeTraceRequestProtobuf(body) : decodeTraceRequestJson(asBuffer(body).toString("utf8"));
  } catch (e) {
    if (e instanceof OtlpDecodeError) throw new ApiError(400, `Not an OTLP ExportTraceServiceRequest (${encoding}): ${e.message}`);
    throw e;
  }
}

export const prepareOtlpBody = (encoding: OtlpEncoding, body: Uint8Array): OtlpBatch => prepareOtlp(decodeOtlp(encoding, body));
