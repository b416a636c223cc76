// The ingest routes, answered beside Next.js's request pipeline. An agent that posts each call as
// it finishes sends many small requests, and Next's path for one — routing, a NextRequest with an
// AbortSignal and a web stream for its body, the route module's tracing, piping the web Response
// back — cost 35–40 % of the server's CPU per call (BENCHMARKS.md). Here the same handler Next
// would run (lib/api/ingestRoutes.ts: auth, contract, errors) gets a plain Request whose body is
// read from the socket into one buffer when the handler asks for it (after auth); a path Next
// cannot decode gets a 400 here (Next would answer 500); every other request goes on to Next unchanged.
import type http from "node:http";
import { bodyLimit, bodyTooLarge, withBodyFrom } from "../api/body";
import { FRAME_HEADERS } from "../api/frameHeaders";
import { INGEST_ROUTES } from "../api/ingestRoutes";
import { errorResponse } from "../api/route";
import { ApiError } from "../api/errors";
import { answerRequests } from "./serverEvents";

type Handler = (req: Request, ctx: { params?: Promise<Record<string, string>> }) => Promise<Response>;

/** Reads the body up to `limit` bytes; past it, stops reading and throws a 413. */
function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) return Promise.reject(bodyTooLarge(limit));
  const cut = () => new ApiError(400, "The request ended before its body did");
  // read after auth: the client may have gone meanwhile (its "aborted" came and went unheard)
  if (req.readableAborted || (req.destroyed && !req.complete)) return Promise.reject(cut());
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] | null = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off("data", onData); // the rest is read and dropped, as Next.js does, so the client sees the 413
        chunks = null;
        reject(bodyTooLarge(limit));
        return;
      }
      chunks!.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => chunks && resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    req.once("error", reject);
    req.once("aborted", () => reject(cut()));
    req.once("close", () => !req.complete && reject(cut()));
  });
}

/** The headers as Node joined them (one Authorization or Host, cookies joined with "; "), as Next.js passes them. */
function webRequest(req: http.IncomingMessage, url: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(url, { method: req.method, headers });
}

async function send(res: http.ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  for (const { key, value } of FRAME_HEADERS) headers[key] = value;
  headers["content-length"] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}

async function serve(handler: Handler, req: http.IncomingMessage, res: http.ServerResponse, url: string): Promise<void> {
  let response: Response;
  try {
    // read when the handler asks for it, once the caller is authenticated (a request without a
    // valid token is answered 401 unread: Node discards the rest of its body)
    const limit = bodyLimit();
    response = await handler(withBodyFrom(webRequest(req, url), () => readBody(req, limit)), {});
    if (!req.complete && req.readableAborted) return void res.destroy(); // the client went away mid-body
  } catch (e) {
    if (!(e instanceof ApiError) && !req.complete) return void res.destroy(); // the client went away mid-body
    response = errorResponse(e);
  }
  await send(res, response);
}

/** The route for a request, when it is one served here. */
function directRoute(req: http.IncomingMessage): { handler: Handler; url: string } | null {
  if (req.method !== "POST" || !req.url) return null;
  const q = req.url.indexOf("?");
  const handler = INGEST_ROUTES[q < 0 ? req.url : req.url.slice(0, q)];
  if (!handler) return null;
  try {
    return { handler, url: new URL(req.url, `http://${req.headers.host ?? "localhost"}`).href };
  } catch {
    return null; // a Host Next can make sense of, or answer
  }
}

/** Whether the path holds a `%` that starts no escape (`/proxy/%zz/v1`): Next fails on it with a 500. */
function malformedPath(url: string): boolean {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  if (!path.includes("%")) return false;
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

const holder = globalThis as unknown as { sightdeskDirectRoutes?: boolean };

/** From now on, the http.Servers of this process answer the ingest routes themselves. */
export function serveIngestDirectly(): void {
  if (holder.sightdeskDirectRoutes) return;
  holder.sightdeskDirectRoutes = true;
  answerRequests((req, res) => {
    if (req.url && malformedPath(req.url)) {
      send(res, errorResponse(new ApiError(400, "Malformed URL: a % in the path must start an escape of two hex digits"))).catch(() => res.destroy());
      return true;
    }
    const route = directRoute(req);
    if (!route) return false;
    serve(route.handler, req, res, route.url).catch(() => res.destroy());
    return true;
  });
}
