// JSON text written by SQL, byte for byte as JSON.stringify writes it, on both databases: the
// counts routes and the triggers that keep SessionOpenCount render their JSON with these.
import { SEVERITIES } from "../domain/interruptions";
import type { Dialect } from "./sql";

export const JSON_SQL = {
  sqlite: {
    /** a JSON string literal (SQLite escapes exactly as JSON.stringify does) */
    quote: (expr: string) => `json_quote(${expr})`,
    /** texts joined by commas, in the given order */
    join: (expr: string, order: string) => `group_concat(${expr}, ',' ORDER BY ${order})`,
    /** printf, not its newer name format: schema text (triggers) must parse in older SQLite too */
    format: "printf",
    /** text compared byte by byte (SQLite's default) */
    bytes: (expr: string) => expr,
  },
  postgres: {
    quote: (expr: string) => `to_json(${expr}::text)::text`,
    join: (expr: string, order: string) => `string_agg(${expr}, ',' ORDER BY ${order})`,
    format: "format",
    bytes: (expr: string) => `${expr} COLLATE "C"`,
  },
} satisfies Record<Dialect, unknown>;

/** One entry of session-counts' `types`: {"interruption_type", "severity", "count"}. */
export function typeCountJson(dialect: Dialect, type: string, severity: string, count: string): string {
  const d = JSON_SQL[dialect];
  return `${d.format}('{"interruption_type":%s,"severity":%s,"count":%s}', ${d.quote(type)}, ${d.quote(severity)}, ${count})`;
}

/** `types` entries joined by commas, in (type, severity) byte order. */
export function typeCountsJson(dialect: Dialect, type: string, severity: string, count: string): string {
  const d = JSON_SQL[dialect];
  return d.join(typeCountJson(dialect, type, severity, count), `${d.bytes(type)}, ${d.bytes(severity)}`);
}

/** One session-counts entry: {"session_id", "total", "by_severity", "types"}; `types` is joined JSON. */
export function sessionCountJson(dialect: Dialect, key: string, total: string, severity: (s: string) => string, types: string): string {
  const by = SEVERITIES.map((s) => `"${s}":%s`).join(",");
  const d = JSON_SQL[dialect];
  return `${d.format}('{"session_id":%s,"total":%s,"by_severity":{${by}},"types":[%s]}', ${d.quote(key)}, ${total}, ${SEVERITIES.map(severity).join(", ")}, ${types})`;
}
