"use client";
import { format } from "date-fns";
import { useEffect, useRef, useState, type ReactNode, type RefObject } from "react";
import { SegmentedControl } from "@/components/ui/SegmentedControl";
import { severityColor } from "@/components/ui/severity";
import { INTERRUPTION_TYPES, SEVERITIES, STATUSES } from "@/lib/domain/interruptions";
import { effectiveStatus, hasFilters, type InboxParams, type Range } from "./params";
import { MultiSelect } from "./MultiSelect";
import { useAgentNames } from "./queries";

export type FilterPatch = Partial<Omit<InboxParams, "sort" | "order" | "pages">>;

const RANGE_OPTIONS = [
  { value: "1h", label: "1 h", title: "Last hour" },
  { value: "24h", label: "24 h", title: "Last 24 hours" },
  { value: "7d", label: "7 d", title: "Last 7 days" },
  { value: "custom", label: "Custom", title: "A start and end time" },
] as const;

const toLocalInput = (d: Date | null) => (d ? format(d, "yyyy-MM-dd'T'HH:mm") : "");
const fromLocalInput = (v: string) => {
  if (!v) return null;
  const d = new Date(v); // a datetime-local value (no zone) is read as local time
  return Number.isNaN(d.getTime()) ? null : d;
};

/**
 * A time of the custom range, taken when it is done: on Enter or when the field is left. Typed
 * segment by segment, a date passes through others (the year 2024 as 0002, 0020, 0202): each was
 * a history entry and a round of queries, and a year before 1970 a request the API refuses.
 */
function TimeField({ label, value, onCommit }: { label: string; value: Date | null; onCommit: (d: Date | null) => void }) {
  const committed = toLocalInput(value);
  const [draft, setDraft] = useState(committed);
  useEffect(() => setDraft(committed), [committed]);
  const commit = () => {
    if (draft === committed) return;
    const d = fromLocalInput(draft);
    if (d && d.getFullYear() < 1970) return setDraft(committed); // no data is older than 1970
    onCommit(d);
  };
  return (
    <label className="flex items-center gap-1">
      <span className="text-muted">{label}</span>
      <input
        type="datetime-local"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => e.key === "Enter" && commit()}
        className="rounded border border-default bg-[var(--bg)] px-1.5 py-0.5"
      />
    </label>
  );
}

function Chip({ pressed, onClick, children, title }: { pressed: boolean; onClick: () => void; children: ReactNode; title?: string }) {
  return (
    <button
      type="button"
      aria-pressed={pressed}
      title={title}
      onClick={onClick}
      className={`inline-flex items-center gap-1.5 rounded-md border px-2 py-1 text-xs font-medium ${
        pressed ? "border-[var(--accent)] bg-[var(--bg)] text-[var(--fg)] shadow-sm" : "border-default text-muted hover:text-[var(--fg)]"
      }`}
    >
      {children}
    </button>
  );
}

const toggled = <T,>(list: readonly T[], v: T) => (list.includes(v) ? list.filter((x) => x !== v) : [...list, v]);

export function FilterBar({
  params,
  onChange,
  onSearch,
  searchRef,
}: {
  params: InboxParams;
  onChange: (patch: FilterPatch) => void;
  onSearch: (q: string) => void;
  searchRef: RefObject<HTMLInputElement | null>;
}) {
  const agents = useAgentNames();

  // The search box types freely; the URL (and the query) follow after a pause or on Enter.
  const [text, setText] = useState(params.q);
  const lastSent = useRef(params.q);
  useEffect(() => {
    if (params.q !== lastSent.current) {
      lastSent.current = params.q;
      setText(params.q);
    }
  }, [params.q]);
  useEffect(() => {
    if (text === lastSent.current) return;
    const t = setTimeout(() => {
      lastSent.current = text;
      onSearch(text);
    }, 350);
    return () => clearTimeout(t);
  }, [text, onSearch]);

  const setRange = (range: Range) => {
    if (range === "custom" && params.range !== "custom") {
      onChange({ range, from: params.from ?? new Date(Date.now() - 24 * 3600_000), to: params.to });
    } else onChange({ range });
  };
  const badRange = params.range === "custom" && params.from && params.to && params.from > params.to;
  // A triage tab stands for status filters; touching those leaves the tab (the view stays the same).
  const eff = effectiveStatus(params);

  return (
    <div className="space-y-2" data-testid="inbox-filters">
      <div className="flex flex-wrap items-center gap-2">
        <div className="relative min-w-[16rem] flex-1 sm:max-w-sm">
          <input
            ref={searchRef}
            type="search"
            value={text}
            maxLength={200}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                lastSent.current = text;
                onSearch(text);
              } else if (e.key === "Escape") {
                (e.target as HTMLInputElement).blur();
              }
            }}
            placeholder="Search type, agent, detail or id"
            aria-label="Search interruptions"
            className="w-full rounded-md border border-default bg-[var(--bg)] py-1 pl-2 pr-8 text-sm outline-none focus:border-[var(--accent)] focus:ring-1 focus:ring-[var(--accent)]"
          />
          <kbd className="pointer-events-none absolute right-2 top-1/2 -translate-y-1/2 rounded border border-default px-1 text-[10px] text-muted">/</kbd>
        </div>
        <SegmentedControl label="Time range" options={RANGE_OPTIONS} value={params.range} onChange={setRange} testId="time-range" />
        {params.range === "custom" && (
          <div className="flex items-center gap-1 text-xs">
            <TimeField label="From" value={params.from} onCommit={(from) => onChange({ from })} />
            <TimeField label="to" value={params.to} onCommit={(to) => onChange({ to })} />
            {!params.to && <span className="text-muted">(now)</span>}
            {badRange && (
              <span role="alert" className="text-red-600 dark:text-red-400">
                Start is after end
              </span>
            )}
          </div>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
        <div role="group" aria-label="Severity" className="flex items-center gap-1">
          <span className="mr-1 text-xs text-muted">Severity</span>
          {SEVERITIES.map((s) => (
            <Chip key={s} pressed={params.severity.includes(s)} onClick={() => onChange({ severity: toggled(params.severity, s) })}>
              <span aria-hidden="true" className="inline-block size-2 rounded-full" style={{ background: severityColor(s) }} />
              {s}
            </Chip>
          ))}
        </div>
        <div role="group" aria-label="Status" className="flex items-center gap-1">
          <span className="mr-1 text-xs text-muted">Status</span>
          {STATUSES.map((s) => (
            <Chip
              key={s}
              pressed={eff.status.includes(s)}
              title={s === "resolved" && eff.unresolved ? "Also turns off “unresolved only”" : undefined}
              onClick={() => {
                const status = toggled(eff.status, s);
                // Asking for resolved rows only makes sense with "unresolved only" off.
                onChange({ tab: null, status, unresolved: s === "resolved" && status.includes("resolved") ? false : eff.unresolved });
              }}
            >
              {s}
            </Chip>
          ))}
        </div>
        <MultiSelect label="Type" options={INTERRUPTION_TYPES} selected={params.type} onChange={(v) => onChange({ type: v as InboxParams["type"] })} searchable testId="filter-type" />
        <MultiSelect label="Agent" options={agents.data ?? []} selected={params.agent} onChange={(agent) => onChange({ agent })} searchable testId="filter-agent" />
        <label className="inline-flex cursor-pointer items-center gap-1.5 text-xs">
          <input
            type="checkbox"
            checked={eff.unresolved}
            onChange={(e) =>
              onChange(
                e.target.checked
                  ? { tab: null, unresolved: true, status: eff.status.filter((s) => s !== "resolved") }
                  : { tab: null, unresolved: false, status: eff.status },
              )
            }
            className="accent-[var(--accent)]"
          />
          Unresolved only
        </label>
        <label className="inline-flex cursor-pointer items-center gap-1.5 text-xs" title="Only interruptions whose fingerprint had been resolved before they fired again">
          <input type="checkbox" checked={params.regressed} onChange={(e) => onChange({ regressed: e.target.checked })} className="accent-[var(--accent)]" />
          Regressed only
        </label>
        <label className="inline-flex cursor-pointer items-center gap-1.5 text-xs" title="One row per fingerprint (type + agent + model + error code), counted by the server">
          <input
            type="checkbox"
            checked={params.group}
            onChange={(e) => onChange(e.target.checked ? { group: true, fingerprint: [] } : { group: false })}
            className="accent-[var(--accent)]"
          />
          Group by fingerprint
        </label>
        {params.fingerprint.length > 0 && (
          <span data-testid="fingerprint-filter" className="inline-flex items-center gap-1 rounded-md border border-[var(--accent)] px-2 py-0.5 text-xs">
            <span className="text-muted">Group</span>
            <span className="font-mono">{params.fingerprint.join(", ")}</span>
            <button type="button" onClick={() => onChange({ fingerprint: [], group: true })} className="ml-1 underline-offset-2 hover:underline">
              Back to groups
            </button>
            <button type="button" aria-label="Clear group filter" title="Clear group filter" onClick={() => onChange({ fingerprint: [] })} className="opacity-70 hover:opacity-100">
              ×
            </button>
          </span>
        )}
        {hasFilters(params) && (
          <button
            type="button"
            onClick={() => {
              setText("");
              lastSent.current = "";
              onChange({ range: "24h", from: null, to: null, type: [], severity: [], agent: [], status: [], unresolved: true, q: "", regressed: false, fingerprint: [] });
            }}
            className="text-xs text-muted underline-offset-2 hover:text-[var(--fg)] hover:underline"
          >
            Reset filters
          </button>
        )}
      </div>
    </div>
  );
}
