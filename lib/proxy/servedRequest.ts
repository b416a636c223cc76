// The connection a request came on, and its target as sent, for code that sees only a web
// Request (the server-mounted proxy runs as a Next route handler, which is given no socket, and
// a URL whose query Next has parsed and written anew). The server's "request" events run inside
// an AsyncLocalStorage holding them; everything the request leads to, the route handler
// included, reads them back. Installed once, at start.
import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

type Served = { socket: Socket; target: string };

// One store per process, kept on globalThis: Next bundles this module separately into the
// instrumentation hook (which installs it) and into each route (which reads it).
const holder = globalThis as unknown as { sightdeskServedRequest?: { store: AsyncLocalStorage<Served> } };
const current = (holder.sightdeskServedRequest ??= { store: new AsyncLocalStorage<Served>() }).store;

/** Runs `fn` (the server's handling of `req`) with the request's socket and target at hand; lib/server installs it. */
export const withServedRequest = <T>(req: IncomingMessage, fn: () => T): T => current.run({ socket: req.socket, target: req.url ?? "/" }, fn);

/** The socket of the request being served, or null (tracking not installed, or not in a request). */
export const requestSocket = (): Socket | null => current.getStore()?.socket ?? null;

/**
 * The path and query of the request being served as the client sent them, or null. Next parses
 * a query and writes it anew (`?flag&t=a%20b` becomes `?flag=&t=a+b`), which matters to a
 * provider that signs or reads the exact text.
 */
export const requestTarget = (): string | null => current.getStore()?.target ?? null;
