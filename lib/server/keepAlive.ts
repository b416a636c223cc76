// Idle connections stay open longer than a load balancer's own idle timeout (AWS ALB and nginx's
// upstream keepalive: 60 s) and than a client's (undici closes one 1–2 s before the server's
// Keep-Alive hint). With Node's 5 s, a balancer or client may send a request on a connection at
// the moment the server closes it, and that request fails (ECONNRESET, EPIPE) though the server
// is healthy; the side that closes an idle connection must be the one that sends on it.
import http from "node:http";

export const KEEP_ALIVE_MS = 65_000;
/** Longer than the keep-alive, as Node's documentation advises (a request's headers, once begun). */
const HEADERS_TIMEOUT_MS = KEEP_ALIVE_MS + 1_000;

const holder = globalThis as unknown as { sightdeskKeepAlive?: WeakSet<http.Server> };

/** From now on, each http.Server of this process keeps idle connections KEEP_ALIVE_MS (set at its first connection). */
export function keepIdleConnectionsOpen(): void {
  if (holder.sightdeskKeepAlive) return;
  const tuned = (holder.sightdeskKeepAlive = new WeakSet());
  const emit = http.Server.prototype.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  http.Server.prototype.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "connection" && !tuned.has(this)) {
      tuned.add(this);
      this.keepAliveTimeout = Math.max(this.keepAliveTimeout, KEEP_ALIVE_MS);
      this.headersTimeout = Math.max(this.headersTimeout, HEADERS_TIMEOUT_MS);
    }
    return emit.call(this, event, ...args);
  };
}
