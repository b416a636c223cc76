// One POST of serialized exchanges to the server's `/api/ingest/http`, as the JSON array of the
// lines: each line is encoded once and written as it is (no joined copy of the batch, no copy of
// the body inside fetch), on a keep-alive connection. Answers the status and the start of the
// body (for the log).
import http from "node:http";
import https from "node:https";

const agents = { "http:": new http.Agent({ keepAlive: true, maxSockets: 2 }), "https:": new https.Agent({ keepAlive: true, maxSockets: 2 }) };
const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");
const ANSWER_BYTES = 4096;

export type IngestAnswer = { status: number; text: string };

/** Rejects when the server cannot be reached or does not answer within `timeoutMs`. */
export function postExchanges(url: URL, token: string, lines: string[], timeoutMs = 30_000): Promise<IngestAnswer> {
  const body: Buffer[] = [OPEN];
  let length = OPEN.length + CLOSE.length;
  lines.forEach((line, i) => {
    const bytes = Buffer.from(line);
    if (i) body.push(COMMA);
    body.push(bytes);
    length += bytes.length + (i ? COMMA.length : 0);
  });
  body.push(CLOSE);
  const secure = url.protocol === "https:";
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(url, {
      method: "POST",
      agent: agents[secure ? "https:" : "http:"],
      timeout: timeoutMs,
      headers: { "content-type": "application/json", "content-length": length, authorization: `Bearer ${token}`, "x-sightdesk-source": "proxy" },
    }, (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on("data", (c: Buffer) => {
        if (kept < ANSWER_BYTES) {
          chunks.push(c);
          kept += c.length;
        }
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8", 0, Math.min(kept, ANSWER_BYTES)) }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: "ETIMEDOUT" })));
    req.on("error", reject);
    req.cork();
    for (const b of body) req.write(b);
    req.uncork();
    req.end();
  });
}
