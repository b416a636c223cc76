// Idle connections stay open longer than a load balancer's own idle timeout (AWS ALB and nginx's
// upstream keepalive: 60 s) and than a client's (undici closes one 1–2 s before the server's
// Keep-Alive hint). With Node's 5 s, a balancer or client may send a request on a connection at
// the moment the server closes it, and that request fails (ECONNRESET, EPIPE) though the server
// is healthy; the side that closes an idle connection must be the one that sends on it.
import { onConnection } from "./serverEvents";

export const KEEP_ALIVE_MS = 65_000;
/** Longer than the keep-alive, as Node's documentation advises (a request's headers, once begun). */
const HEADERS_TIMEOUT_MS = KEEP_ALIVE_MS + 1_000;

const holder = globalThis as unknown as { sightdeskKeepAlive?: boolean };

/** From now on, each http.Server of this process keeps idle connections KEEP_ALIVE_MS (set as connections arrive). */
export function keepIdleConnectionsOpen(): void {
  if (holder.sightdeskKeepAlive) return;
  holder.sightdeskKeepAlive = true;
  onConnection((server) => {
    server.keepAliveTimeout = Math.max(server.keepAliveTimeout, KEEP_ALIVE_MS);
    server.headersTimeout = Math.max(server.headersTimeout, HEADERS_TIMEOUT_MS);
  });
}
