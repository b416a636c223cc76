"use client";
// Snooze (SPEC §4): until a time (1 h, 8 h, 24 h, 7 d or a custom time), until N more
// occurrences of the fingerprint, or until it escalates — the first met wakes it — with a reason.
// What is snoozed (a row, a selection, a group) is described by the caller.
import { useState, type ReactNode } from "react";
import { ConfirmDialog } from "@/components/ui/Dialog";
import { SNOOZE_PRESETS, type SnoozePreset } from "@/lib/domain/snooze";

/** The request body's conditions and reason (as POST …/snooze, bulk `snooze` and POST /api/snoozes take them). */
export type SnoozeBody = { for_secs?: number; until?: string; until_occurrences?: number; until_escalates?: boolean; reason?: string };

type TimeChoice = SnoozePreset | "custom" | "none";
const PRESET_LABELS: Record<SnoozePreset, string> = { "1h": "1 hour", "8h": "8 hours", "24h": "24 hours", "7d": "7 days" };

/** Local datetime-local text → ISO 8601 (UTC); null when empty or not a time. */
function isoOf(local: string): string | null {
  const ms = local ? new Date(local).getTime() : NaN;
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

function SnoozeForm({ onChange }: { onChange: (body: SnoozeBody | string) => void }) {
  const [time, setTime] = useState<TimeChoice>("1h");
  const [custom, setCustom] = useState("");
  const [countOn, setCountOn] = useState(false);
  const [count, setCount] = useState("10");
  const [escalates, setEscalates] = useState(false);
  const [reason, setReason] = useState("");
  // Reports the body (or why there is none) on every change; the dialog keeps the last one.
  const report = (next: Partial<{ time: TimeChoice; custom: string; countOn: boolean; count: string; escalates: boolean; reason: string }>) => {
    const s = { time, custom, countOn, count, escalates, reason, ...next };
    const body: SnoozeBody = {};
    if (s.time === "custom") {
      const iso = isoOf(s.custom);
      if (!iso) return onChange("Pick the time it wakes.");
      if (Date.parse(iso) <= Date.now()) return onChange("The time must be in the future.");
      body.until = iso;
    } else if (s.time !== "none") body.for_secs = SNOOZE_PRESETS[s.time];
    if (s.countOn) {
      const n = Number(s.count);
      if (!Number.isInteger(n) || n < 1) return onChange("The number of occurrences must be a whole number above 0.");
      body.until_occurrences = n;
    }
    if (s.escalates) body.until_escalates = true;
    if (s.reason.trim()) body.reason = s.reason.trim();
    if (body.for_secs === undefined && body.until === undefined && body.until_occurrences === undefined && !body.until_escalates) {
      return onChange("Choose at least one way for it to wake.");
    }
    onChange(body);
  };
  const set = <K extends string, V>(setter: (v: V) => void, key: K) => (v: V) => {
    setter(v);
    report({ [key]: v });
  };
  const radio = "accent-[var(--accent)]";
  return (
    <div className="space-y-3" data-testid="snooze-form">
      <fieldset className="space-y-1">
        <legend className="mb-1 text-xs font-medium text-muted">Wake it after</legend>
        <div className="flex flex-wrap gap-x-3 gap-y-1">
          {(Object.keys(PRESET_LABELS) as SnoozePreset[]).map((p) => (
            <label key={p} className="inline-flex items-center gap-1">
              <input type="radio" name="snooze-time" checked={time === p} onChange={() => set(setTime, "time")(p)} className={radio} />
              {PRESET_LABELS[p]}
            </label>
          ))}
          <label className="inline-flex items-center gap-1">
            <input type="radio" name="snooze-time" checked={time === "custom"} onChange={() => set(setTime, "time")("custom")} className={radio} />
            until…
          </label>
          <label className="inline-flex items-center gap-1">
            <input type="radio" name="snooze-time" checked={time === "none"} onChange={() => set(setTime, "time")("none")} className={radio} />
            no time limit
          </label>
        </div>
        {time === "custom" && (
          <input
            type="datetime-local"
            aria-label="Wake at"
            value={custom}
            onChange={(e) => set(setCustom, "custom")(e.target.value)}
            className="rounded border border-default bg-[var(--bg)] px-1.5 py-0.5"
          />
        )}
      </fieldset>
      <label className="flex flex-wrap items-center gap-1.5">
        <input type="checkbox" checked={countOn} onChange={(e) => set(setCountOn, "countOn")(e.target.checked)} className={radio} />
        or after
        <input
          type="number"
          min={1}
          aria-label="More occurrences"
          value={count}
          disabled={!countOn}
          onChange={(e) => set(setCount, "count")(e.target.value)}
          className="w-20 rounded border border-default bg-[var(--bg)] px-1.5 py-0.5 disabled:opacity-50"
        />
        more occurrences
      </label>
      <label className="flex items-start gap-1.5" title="Its rate over the last hour reaches 3× its rate when snoozed, or a more severe one arrives">
        <input type="checkbox" checked={escalates} onChange={(e) => set(setEscalates, "escalates")(e.target.checked)} className={`${radio} mt-1`} />
        <span>
          or when it escalates <span className="text-xs text-muted">(3× its hourly rate when snoozed, or a more severe one)</span>
        </span>
      </label>
      <div className="space-y-1">
        <label htmlFor="snooze-reason" className="block text-xs font-medium text-muted">
          Reason (optional, kept in the activity log)
        </label>
        <input
          id="snooze-reason"
          value={reason}
          maxLength={1000}
          onChange={(e) => set(setReason, "reason")(e.target.value)}
          placeholder="e.g. provider incident, fix deploying"
          className="w-full rounded-md border border-default bg-[var(--bg)] px-2 py-1.5"
        />
      </div>
      <p className="text-[11px] text-muted">Whichever comes first wakes it: it returns to open, with an activity entry saying why.</p>
    </div>
  );
}

/** The dialog; `about` says what is snoozed. Remounts its form each time it opens (fresh defaults). */
export function SnoozeDialog({
  open,
  title,
  about,
  confirmLabel = "Snooze",
  pending,
  error,
  onCancel,
  onConfirm,
}: {
  open: boolean;
  title: string;
  about: ReactNode;
  confirmLabel?: string;
  pending: boolean;
  error: string | null;
  onCancel: () => void;
  onConfirm: (body: SnoozeBody) => void;
}) {
  const [state, setState] = useState<SnoozeBody | string>({ for_secs: SNOOZE_PRESETS["1h"] });
  const [shown, setShown] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (open !== shown) {
    setShown(open);
    setState({ for_secs: SNOOZE_PRESETS["1h"] });
    setProblem(null);
  }
  return (
    <ConfirmDialog
      open={open}
      title={title}
      confirmLabel={confirmLabel}
      pending={pending}
      error={problem ?? error}
      onCancel={onCancel}
      onConfirm={() => (typeof state === "string" ? setProblem(state) : onConfirm(state))}
      testId="snooze-dialog"
    >
      {about}
      {open && (
        <SnoozeForm
          onChange={(next) => {
            setState(next);
            setProblem(null);
          }}
        />
      )}
    </ConfirmDialog>
  );
}
