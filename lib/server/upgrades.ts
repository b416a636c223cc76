// Requests with an Upgrade header served as the requests they are. Node hands such a request
// to the server's "upgrade" listeners when it has any, and `next start` always adds one (for
// WebSocket rewrites, which SightDesk has none of): it closed every other Upgrade request's
// socket without a byte. Java's HttpClient asks to upgrade each request over http:// to h2c, so
// a Java agent got nothing from the mounted proxy, ingest or OTLP. Without the listener Node
// emits "request" for them; the mounted proxy refuses WebSockets itself (lib/api/proxyRoute.ts).
import { onConnection } from "./serverEvents";

const holder = globalThis as unknown as { sightdeskUpgrades?: boolean };

/** From now on, each http.Server of this process drops its "upgrade" listeners (at its first connection). */
export function serveUpgradeRequests(): void {
  if (holder.sightdeskUpgrades) return;
  holder.sightdeskUpgrades = true;
  onConnection((server) => {
    if (server.listenerCount("upgrade")) server.removeAllListeners("upgrade");
  });
}
