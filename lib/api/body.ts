import { ApiError } from "./errors";
import { parseJsonExact } from "./json";

export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

export function bodyLimit(): number {
  const configured = Number(process.env.SIGHTDESK_MAX_BODY_BYTES);
  return Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_BODY_LIMIT;
}

/** Reads a request body up to `limit` bytes (413 beyond it, without buffering the rest). */
export async function readBodyText(req: Request, limit = bodyLimit()): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw new ApiError(413, `Request body exceeds ${limit} bytes`);
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new ApiError(413, `Request body exceeds ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The parsed body; an empty body is `undefined` where allowed (optional bodies), else a 400. */
export async function readJsonBody(req: Request, options: { allowEmpty?: boolean; limit?: number } = {}): Promise<unknown> {
  const text = await readBodyText(req, options.limit ?? bodyLimit());
  if (!text.trim()) {
    if (options.allowEmpty) return undefined;
    throw new ApiError(400, "Request body is empty: expected JSON");
  }
  try {
    return parseJsonExact(text);
  } catch (e) {
    throw new ApiError(400, `Malformed JSON: ${(e as Error).message}`);
  }
}
