// Next.js creates the server's http.Server and gives no handle on it. What SightDesk needs of
// it — idle connections kept open (keepAlive.ts), ingest answered beside Next's pipeline
// (directRoutes.ts), each request's socket and target as sent known to its handler (lib/proxy/servedRequest.ts, from startup.ts) —
// comes from one patch of http.Server.prototype.emit, installed once per process, whichever
// of them registers first.
import http from "node:http";

type Emit = (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;

type Listeners = {
  /** run on each new connection, before Node's own handling */
  connection: ((server: http.Server) => void)[];
  /** offered each request in turn; one that returns true has answered it, and Next never sees it */
  answer: ((req: http.IncomingMessage, res: http.ServerResponse) => boolean)[];
  /** runs Next's handling of a request (`next`) inside some context */
  around: ((req: http.IncomingMessage, next: () => boolean) => boolean) | null;
};

// on globalThis: Next.js bundles this module separately into the instrumentation hook and each route
const holder = globalThis as unknown as { sightdeskServerEvents?: Listeners };

function listeners(): Listeners {
  if (holder.sightdeskServerEvents) return holder.sightdeskServerEvents;
  const own: Listeners = (holder.sightdeskServerEvents = { connection: [], answer: [], around: null });
  const emit = http.Server.prototype.emit as Emit;
  http.Server.prototype.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "connection") {
      for (const listener of own.connection) listener(this);
    } else if (event === "request") {
      const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
      for (const answer of own.answer) if (answer(req, res)) return true;
      if (own.around) return own.around(req, () => emit.call(this, event, ...args));
    }
    return emit.call(this, event, ...args);
  };
  return own;
}

/** `listener` runs for each new connection of every http.Server of this process. */
export const onConnection = (listener: Listeners["connection"][number]): void => void listeners().connection.push(listener);

/** `answer` is offered every request first; when it returns true it has answered the request. */
export const answerRequests = (answer: Listeners["answer"][number]): void => void listeners().answer.push(answer);

/** The requests Next.js handles are handled inside `around` (one at a time: a later call replaces it). */
export function handleRequestsAround(around: NonNullable<Listeners["around"]>): void {
  listeners().around = around;
}
