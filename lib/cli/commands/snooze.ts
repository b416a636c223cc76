// `sightdesk interruption snooze <id>`: set an interruption (or with --group its whole
// fingerprint group) aside until a time, N more occurrences, or escalation (SPEC §4).
import { InvalidArgumentError } from "commander";
import { SNOOZE_PRESETS } from "../../domain/snooze";
import { type Context, pathId } from "../context";
import { CliError, UsageError } from "../errors";
import { localTime, plural, safeJson, safeLine } from "../format";
import { line } from "../io";
import { isObj, toRecord } from "../replies";

export type SnoozeOptions = {
  for?: number;
  until?: string;
  occurrences?: number;
  escalates?: boolean;
  group?: boolean;
  reason?: string;
  json?: boolean;
};

const UNIT_SECS: Record<string, number> = { m: 60, h: 3600, d: 86_400 };

/** A length: one of the presets (1h, 8h, 24h, 7d) or any N m|h|d (1 minute to 366 days); in seconds. */
export function parseDuration(value: string): number {
  const text = value.trim().toLowerCase();
  if (text in SNOOZE_PRESETS) return SNOOZE_PRESETS[text as keyof typeof SNOOZE_PRESETS];
  const m = /^(\d+)\s*([mhd])$/.exec(text);
  const secs = m ? Number(m[1]) * UNIT_SECS[m[2]] : NaN;
  if (!Number.isSafeInteger(secs) || secs < 60 || secs > 366 * 86_400) {
    throw new InvalidArgumentError("expected a length such as 1h, 8h, 24h, 7d or 90m (1 minute to 366 days)");
  }
  return secs;
}

function conditions(opts: SnoozeOptions): Record<string, unknown> {
  if (opts.for === undefined && opts.until === undefined && opts.occurrences === undefined && !opts.escalates) {
    throw new UsageError("Say until when: --for, --until, --occurrences or --escalates");
  }
  if (opts.for !== undefined && opts.until !== undefined) {
    throw new UsageError("Give --for or --until, not both: a snooze wakes at one time (--occurrences and --escalates go with either)");
  }
  return {
    ...(opts.for !== undefined ? { for_secs: opts.for } : {}),
    ...(opts.until !== undefined ? (/^\d+$/.test(opts.until) ? { until_ns: opts.until } : { until: opts.until }) : {}),
    ...(opts.occurrences !== undefined ? { until_occurrences: opts.occurrences } : {}),
    ...(opts.escalates ? { until_escalates: true } : {}),
    ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
  };
}

const secsText = (secs: number) => (secs % 86_400 === 0 ? `${secs / 86_400} d` : secs % 3600 === 0 ? `${secs / 3600} h` : `${Math.round(secs / 60)} min`);

/** The conditions asked for, in words. */
function asked(opts: SnoozeOptions): string {
  return [
    ...(opts.for !== undefined ? [`for ${secsText(opts.for)}`] : []),
    ...(opts.until !== undefined ? [`until ${/^\d+$/.test(opts.until) ? localTime(opts.until) : opts.until}`] : []),
    ...(opts.occurrences !== undefined ? [`until ${opts.occurrences} more occurrence${opts.occurrences === 1 ? "" : "s"}`] : []),
    ...(opts.escalates ? ["until it escalates"] : []),
  ].join(", or ");
}

export async function snooze(ctx: Context, id: string, opts: SnoozeOptions): Promise<void> {
  const body = conditions(opts);
  const client = ctx.client();
  const notFound = `Interruption not found: ${safeLine(id)}`;
  if (opts.group) {
    const got = (await client.get(`/api/interruptions/${pathId(id, "interruption")}`, { notFound })).value;
    const fingerprint = isObj(got) && typeof got.fingerprint === "string" ? got.fingerprint : null;
    if (!fingerprint) throw new CliError("Unexpected response from the server: the interruption has no fingerprint");
    const res = await client.post("/api/snoozes", { body: { fingerprint, ...body } });
    if (opts.json) return line(ctx.io.out, safeJson(res.text.trim()));
    const changed = isObj(res.value) && typeof res.value.changed === "number" ? res.value.changed : 0;
    line(ctx.io.out, `Snoozed the group ${safeLine(fingerprint)} (${plural(changed, "interruption")} now, and new ones as they arrive) ${asked(opts)}.`);
    return;
  }
  const res = await client.post(`/api/interruptions/${pathId(id, "interruption")}/snooze`, { body, notFound });
  if (opts.json) return line(ctx.io.out, safeJson(res.text.trim()));
  const record = toRecord(res.value);
  line(ctx.io.out, `Snoozed ${record.interruption_id} (${record.severity} ${record.interruption_type}) ${asked(opts)}; status: ${record.status}.`);
}
