// Parsers for option values. A bad value is a commander InvalidArgumentError: a usage error
// (exit 2) before any request is sent.
import { InvalidArgumentError } from "commander";
import { SCOPES } from "../auth/scopes";
import { INTERRUPTION_TYPES, SEVERITIES } from "../domain/interruptions";

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

/** An expiry: integer nanoseconds, or a date/time (sent as ISO 8601, UTC). */
export function parseExpiry(value: string): string {
  const text = value.trim();
  if (/^\d{1,20}$/.test(text)) return text;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new InvalidArgumentError("expected an ISO 8601 time, e.g. 2027-01-31 or 2027-01-31T12:00:00Z");
  return new Date(ms).toISOString();
}

export function parseNonEmpty(value: string): string {
  if (!value.trim()) throw new InvalidArgumentError("must not be empty");
  return value;
}
