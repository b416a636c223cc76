// The server's replies as the CLI reads them (SPEC §5), checked at runtime. The types come from the route
// contracts (lib/api/contracts/wire.ts): bodies are parsed with parseJsonExact, so long `*_ns`
// integers arrive as exact decimal strings.
import type * as Wire from "../api/contracts/wire";
import { CliError } from "./errors";

export type Obj = { [key: string]: unknown };

/** The fields the CLI reads of an interruption record; `status` falls back to `resolved` (servers without one). */
export type InterruptionRecord = Pick<
  Wire.InterruptionRecord,
  "interruption_id" | "session_id" | "conversation_id" | "agent_name" | "interruption_type" | "severity" | "occurred_at_ns" | "detail" | "resolved"
> & { status: string };

export type SeverityCounts = Wire.SeverityCounts;
export type CountResponse = Wire.CountResponse;
export type StatsRow = Wire.TypeCount;

/** A token as listed; scopes stay plain strings (a newer server may know more). */
export type TokenInfo = Omit<Wire.TokenRecord, "scopes"> & { scopes: string[] };
export type CreatedToken = TokenInfo & Pick<Wire.CreatedToken, "token">;

function unexpected(what: string): CliError {
  return new CliError(`Unexpected response from the server: ${what}`);
}

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function obj(v: unknown, what: string): Obj {
  if (!isObj(v)) throw unexpected(`expected ${what} to be an object`);
  return v;
}

export function array(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw unexpected(`expected ${what} to be an array`);
  return v;
}

function str(o: Obj, key: string): string {
  const v = o[key];
  if (typeof v !== "string") throw unexpected(`field '${key}' is not a string`);
  return v;
}

function strOrNull(o: Obj, key: string): string | null {
  const v = o[key];
  if (v === null || v === undefined) return null;
  if (typeof v !== "string") throw unexpected(`field '${key}' is not a string`);
  return v;
}

function int(o: Obj, key: string): number {
  const v = o[key];
  if (typeof v !== "number" || !Number.isInteger(v)) throw unexpected(`field '${key}' is not an integer`);
  return v;
}

/** Nanoseconds as exact decimal text (short values may still arrive as JSON numbers). */
export function nsText(v: unknown): string | null {
  if (typeof v === "string" && /^-?\d+$/.test(v)) return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  return null;
}

function ns(o: Obj, key: string): string {
  const v = nsText(o[key]);
  if (v === null) throw unexpected(`field '${key}' is not integer nanoseconds`);
  return v;
}

function nsOrNull(o: Obj, key: string): string | null {
  return o[key] === null || o[key] === undefined ? null : ns(o, key);
}

export function toRecord(v: unknown): InterruptionRecord {
  const o = obj(v, "an interruption");
  return {
    interruption_id: str(o, "interruption_id"),
    session_id: strOrNull(o, "session_id"),
    conversation_id: strOrNull(o, "conversation_id"),
    agent_name: strOrNull(o, "agent_name"),
    interruption_type: str(o, "interruption_type"),
    severity: str(o, "severity"),
    occurred_at_ns: ns(o, "occurred_at_ns"),
    detail: typeof o.detail === "string" ? o.detail : JSON.stringify(o.detail ?? null),
    status: typeof o.status === "string" ? o.status : o.resolved === true ? "resolved" : "open",
    resolved: o.resolved === true,
  };
}

export const toRecords = (v: unknown): InterruptionRecord[] => array(v, "the interruptions").map(toRecord);

export function toCount(v: unknown): CountResponse {
  const o = obj(v, "the count");
  const s = obj(o.by_severity, "by_severity");
  return { total: int(o, "total"), by_severity: { critical: int(s, "critical"), high: int(s, "high"), medium: int(s, "medium"), low: int(s, "low") } };
}

export function toStats(v: unknown): StatsRow[] {
  return array(v, "the stats").map((row) => {
    const o = obj(row, "a stats row");
    return { interruption_type: str(o, "interruption_type"), severity: str(o, "severity"), count: int(o, "count") };
  });
}

export function toToken(v: unknown): TokenInfo {
  const o = obj(v, "a token");
  const scopes = array(o.scopes, "scopes").map((s) => (typeof s === "string" ? s : String(s)));
  return {
    id: str(o, "id"),
    name: str(o, "name"),
    scopes,
    created_by: strOrNull(o, "created_by"),
    created_at_ns: ns(o, "created_at_ns"),
    expires_at_ns: nsOrNull(o, "expires_at_ns"),
    last_used_at_ns: nsOrNull(o, "last_used_at_ns"),
    revoked_at_ns: nsOrNull(o, "revoked_at_ns"),
  };
}

export const toTokens = (v: unknown): TokenInfo[] => array(v, "the tokens").map(toToken);

export function toCreatedToken(v: unknown): CreatedToken {
  const o = obj(v, "the new token");
  return { ...toToken(o), token: str(o, "token") };
}
