// Keyset cursors of lists in time order (interruptions by occurrence, sessions by last activity):
// "<ns>.<id>" in base64url, opaque to clients. The id may hold dots: the first one ends the time.
import { invalid } from "../../domain/errors";
import { MAX_NS } from "../../domain/time";

export type TimeCursor = { ns: bigint; id: string };

export const encodeTimeCursor = (ns: bigint, id: string): string => Buffer.from(`${ns}.${id}`).toString("base64url");

/** The time and id of a cursor this server issued; a 400 naming `cursor` for anything else. */
export function decodeTimeCursor(cursor: string): TimeCursor {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const dot = text.indexOf(".");
  const ns = text.slice(0, dot);
  const id = text.slice(dot + 1);
  if (dot < 0 || !/^\d{1,20}$/.test(ns) || !id || BigInt(ns) > MAX_NS) throw invalid("cursor: not a cursor this server issued");
  return { ns: BigInt(ns), id };
}
