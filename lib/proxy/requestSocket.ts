// The connection a request came on, for code that sees only a web Request (the server-mounted
// proxy runs as a Next route handler, which is given no socket). The server's "request" events
// run inside an AsyncLocalStorage holding the request's socket; everything the request leads
// to, the route handler included, reads it back with requestSocket(). Installed once, at start.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Socket } from "node:net";

// One store per process, kept on globalThis: Next bundles this module separately into the
// instrumentation hook (which installs it) and into each route (which reads it).
const holder = globalThis as unknown as { sightdeskRequestSocket?: { store: AsyncLocalStorage<Socket> } };
const current = (holder.sightdeskRequestSocket ??= { store: new AsyncLocalStorage<Socket>() }).store;

/** Runs `fn` (the server's handling of a request) with `socket` as the request's socket; lib/server installs it. */
export const withRequestSocket = <T>(socket: Socket, fn: () => T): T => current.run(socket, fn);

/** The socket of the request being served, or null (tracking not installed, or not in a request). */
export const requestSocket = (): Socket | null => current.getStore() ?? null;
