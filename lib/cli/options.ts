// Parsers for option values. A bad value is a commander InvalidArgumentError: a usage error
// (exit 2) before any request is sent.
import { InvalidArgumentError } from "commander";
import { ROLES } from "../auth/roles";
import { SCOPES } from "../auth/scopes";
import { INTERRUPTION_TYPES, SEVERITIES } from "../domain/interruptions";
import { parseUpstream } from "../proxy/routes";

export const MAX_HOURS = 24 * 366 * 10;

export function parseHours(value: string): number {
  const hours = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(hours) || hours <= 0 || hours > MAX_HOURS) {
    throw new InvalidArgumentError(`expected a number of hours above 0 (at most ${MAX_HOURS})`);
  }
  return hours;
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError("expected a positive integer");
  return n;
}

const split = (value: string) =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** A comma list (the option may also repeat), each item among `allowed` when given. */
function listParser(allowed?: readonly string[]) {
  return (value: string, previous: string[] | undefined): string[] => {
    const items = split(value);
    if (!items.length) throw new InvalidArgumentError("expected at least one value");
    const unknown = allowed ? items.find((i) => !allowed.includes(i)) : undefined;
    if (unknown !== undefined) throw new InvalidArgumentError(`unknown value '${unknown}' (expected one of ${allowed?.join(", ")})`);
    return [...new Set([...(previous ?? []), ...items])];
  };
}

export const parseTypes = listParser(INTERRUPTION_TYPES);
export const parseSeverities = listParser(SEVERITIES);
export const parseScopes = listParser(SCOPES);
export const parseNames = listParser();

/**
 * A time: integer nanoseconds (16 to 20 digits: a shorter number is a year or a date, such as
 * 2027, not a moment of 1970), or a date/time (sent as ISO 8601, UTC).
 */
export function parseTime(value: string): string {
  const text = value.trim();
  if (/^\d{16,20}$/.test(text)) return text;
  const expected = "expected an ISO 8601 time (e.g. 2027-01-31 or 2027-01-31T12:00:00Z; UTC unless it gives an offset) or integer nanoseconds";
  // ISO 8601 only: Date.parse alone also took "12" (December 2001) and 2027-02-30 (as March 2)
  const m = ISO_TIME.exec(text);
  if (!m) throw new InvalidArgumentError(expected);
  const [, year, month, day, hour, minute, second] = m.map((v) => (v === undefined ? undefined : Number(v)));
  const daysInMonth = month === undefined ? 31 : new Date(Date.UTC(year!, month, 0)).getUTCDate();
  if ((month !== undefined && (month < 1 || month > 12)) || (day !== undefined && (day < 1 || day > daysInMonth)) || (hour ?? 0) > 23 || (minute ?? 0) > 59 || (second ?? 0) > 59) {
    throw new InvalidArgumentError(`${text} is not a date of the calendar (${expected})`);
  }
  // a time without an offset is UTC, as a date alone is (Date.parse reads it in this machine's zone)
  const hasTime = hour !== undefined;
  const ms = Date.parse(hasTime && !/(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) ? `${text.replace(" ", "T")}Z` : text);
  if (Number.isNaN(ms)) throw new InvalidArgumentError(expected);
  return new Date(ms).toISOString();
}

/** Year; or date; or date and time (T or a space), to the minute, second or fraction; then an optional offset. */
const ISO_TIME = /^(\d{4})(?:-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?)?$/i;

export function parseNonEmpty(value: string): string {
  if (!value.trim()) throw new InvalidArgumentError("must not be empty");
  return value;
}

// The options of the commands whose code loads only when they run (program.ts): import, forward,
// proxy and user need the database or the proxy, the other commands only HTTP.

export const DEFAULT_INTERVAL_SECS = 2;

export function parseInterval(value: string): number {
  const secs = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(secs) || secs < 0.05 || secs > 86_400) {
    throw new InvalidArgumentError("expected seconds between 0.05 and 86400");
  }
  return secs;
}

export type Listen = { host: string; port: number };

export const DEFAULT_LISTEN = "127.0.0.1:0";

/** `HOST:PORT`, `[::1]:PORT` or `:PORT` (all interfaces); port 0 picks a free one. */
export function parseListen(value: string): Listen {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65_535) throw new InvalidArgumentError("expected HOST:PORT, e.g. 127.0.0.1:7480 or 0.0.0.0:7480");
  return { host: m[1] ?? (m[2] || "0.0.0.0"), port };
}

export function parseAdvertise(value: string): string {
  try {
    const u = new URL(value);
    if ((u.protocol === "http:" || u.protocol === "https:") && !u.username && !u.password) return value.replace(/\/+$/, "");
  } catch {
    /* below */
  }
  throw new InvalidArgumentError("expected an http(s) URL, e.g. http://agent-host-3:7480");
}

export const DEFAULT_PROXY_LISTEN = "127.0.0.1:8788";
export const DEFAULT_SPOOL_MAX_MB = 256;
export const DEFAULT_TIMEOUT_SECS = 600;
export const DEFAULT_IDLE_TIMEOUT_SECS = 600;

/** `--upstream NAME=URL`, repeatable. */
export function collectUpstream(value: string, previous: string[] | undefined): string[] {
  try {
    parseUpstream(value);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
  return [...(previous ?? []), value];
}

export function parseMegabytes(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1 || n > 1_000_000) throw new InvalidArgumentError("expected a whole number of megabytes (1 or more)");
  return n;
}

export function parseSeconds(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || n <= 0 || n > 86_400) throw new InvalidArgumentError("expected a number of seconds above 0");
  return n;
}

export const PASSWORD_ENV = "SIGHTDESK_USER_PASSWORD";

export const ROLE_CHOICES: readonly string[] = ROLES;
