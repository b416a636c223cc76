// What a command needs: a client for the server (created on first use, so a missing token is
// reported only by commands that talk to the server) and where to write.
import type { SightDeskClient } from "./client";
import { InputError } from "./errors";
import type { Io } from "./io";

export type Context = {
  client: () => SightDeskClient;
  io: Io;
  /** the current time in milliseconds (for --last and token expiry) */
  now: () => number;
};

/** An id as one path segment of a route (`.` and `..` would change the route). */
export function pathId(id: string, what: string): string {
  const trimmed = id.trim();
  if (!trimmed || trimmed === "." || trimmed === "..") throw new InputError(`Invalid ${what} id '${id}'`);
  return encodeURIComponent(trimmed);
}
