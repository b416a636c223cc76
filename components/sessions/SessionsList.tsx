"use client";
import { parseAsBoolean, parseAsInteger, parseAsString, useQueryStates } from "nuqs";
import { useRememberListUrl } from "@/components/ui/listReturn";
import { useState } from "react";
import { formatCount } from "@/components/ui/numbers";
import { PanelMessage, SkeletonRows } from "@/components/ui/Panel";
import { useAgentNames, useSessionsPage } from "./queries";
import { SessionsTable } from "./SessionsTable";

const PAGE_SIZES = [25, 50, 100, 200];
const DEFAULT_PAGE_SIZE = 50;

const params = {
  agent_name: parseAsString,
  with_open: parseAsBoolean.withDefault(false),
  cursor: parseAsString,
  limit: parseAsInteger.withDefault(DEFAULT_PAGE_SIZE),
};

const control =
  "rounded-md border border-default bg-[var(--bg)] px-2 py-1 text-sm outline-none focus-visible:ring-2 focus-visible:ring-[var(--accent)]";
const button =
  "rounded-md border border-default px-2.5 py-1 text-sm font-medium hover:bg-subtle disabled:cursor-not-allowed disabled:opacity-50 outline-none focus-visible:ring-2 focus-visible:ring-[var(--accent)]";

/** The sessions list at `/sessions`: filters and the page cursor live in the URL. */
export function SessionsList() {
  const [q, setQ] = useQueryStates(params, { history: "push" });
  useRememberListUrl("/sessions");
  const limit = Math.min(Math.max(q.limit, 1), 5000);
  const page = useSessionsPage({ agent: q.agent_name, withOpen: q.with_open, cursor: q.cursor, limit });
  const agents = useAgentNames();

  // The cursors of the pages seen since the filters last changed: "previous" walks back along them
  // (and stays right when the browser's back button changes the cursor).
  const [trail, setTrail] = useState<(string | null)[]>([null]);
  let index = trail.indexOf(q.cursor);
  if (index < 0) {
    setTrail([q.cursor]); // a pasted link or a new filter: this page starts the trail
    index = 0;
  }

  const setFilter = (patch: Partial<{ agent_name: string | null; with_open: boolean }>) => {
    setTrail([null]);
    void setQ({ ...patch, cursor: null });
  };
  const goNext = () => {
    if (!page.data?.next) return;
    setTrail([...trail.slice(0, index + 1), page.data.next]);
    void setQ({ cursor: page.data.next });
  };
  const goPrevious = () => void setQ({ cursor: index > 0 ? trail[index - 1] : null });

  const agentOptions = agents.data ?? [];
  const options = q.agent_name && !agentOptions.includes(q.agent_name) ? [q.agent_name, ...agentOptions] : agentOptions;
  const sessions = page.data?.sessions;
  const firstRow = index * limit + 1; // exact when the trail starts at the first page
  const knownStart = trail[0] === null;
  const filtered = q.agent_name !== null || q.with_open;

  return (
    <div className="space-y-3" data-testid="sessions-list" data-ready={page.data && !page.isFetching && !page.isPlaceholderData ? "true" : "false"}>
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Sessions</h1>
          <p className="text-sm text-muted">Agent runs, most recently active first.</p>
        </div>
      </div>

      <div className="flex flex-wrap items-center gap-x-4 gap-y-2 rounded-lg border border-default bg-subtle px-3 py-2" role="search" aria-label="Filter sessions">
        <label className="flex items-center gap-2 text-sm">
          <span className="text-muted">Agent</span>
          <select
            className={`${control} max-w-[16rem]`}
            value={q.agent_name ?? ""}
            onChange={(e) => setFilter({ agent_name: e.target.value || null })}
            data-testid="agent-filter"
          >
            <option value="">All agents</option>
            {options.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            className="size-4 accent-[var(--accent)]"
            checked={q.with_open}
            onChange={(e) => setFilter({ with_open: e.target.checked })}
            data-testid="with-open-filter"
          />
          <span>With open interruptions</span>
        </label>
        {filtered && (
          <button type="button" className="accent text-sm hover:underline" onClick={() => setFilter({ agent_name: null, with_open: false })}>
            Clear filters
          </button>
        )}
        <label className="ml-auto flex items-center gap-2 text-sm">
          <span className="text-muted">Rows</span>
          <select
            className={control}
            value={limit}
            onChange={(e) => {
              setTrail([null]);
              void setQ({ limit: Number(e.target.value) === DEFAULT_PAGE_SIZE ? null : Number(e.target.value), cursor: null });
            }}
          >
            {(PAGE_SIZES.includes(limit) ? PAGE_SIZES : [...PAGE_SIZES, limit].sort((a, b) => a - b)).map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      </div>

      {page.error && !sessions ? (
        <PanelMessage tone="error">Could not load sessions: {page.error.message}</PanelMessage>
      ) : !sessions ? (
        <div className="rounded-lg border border-default">
          <SkeletonRows rows={8} />
        </div>
      ) : sessions.length === 0 ? (
        <div className="rounded-lg border border-default" data-testid="sessions-empty">
          <PanelMessage>{filtered ? "No sessions match these filters." : "No sessions yet. Sessions appear when agents send their calls."}</PanelMessage>
        </div>
      ) : (
        <div className={page.isPlaceholderData ? "opacity-60 transition-opacity" : "transition-opacity"}>
          <SessionsTable sessions={sessions} />
        </div>
      )}

      <nav className="flex items-center justify-between gap-3 text-sm" aria-label="Pages">
        <span className="text-muted" data-testid="sessions-range" aria-live="polite">
          {sessions && sessions.length > 0
            ? knownStart
              ? `Sessions ${formatCount(firstRow)}–${formatCount(firstRow + sessions.length - 1)}`
              : `${formatCount(sessions.length)} sessions`
            : ""}
        </span>
        <span className="flex gap-2">
          {!knownStart && index === 0 ? (
            <button type="button" className={button} onClick={() => setFilter({})}>
              First page
            </button>
          ) : (
            <button type="button" className={button} disabled={index === 0} onClick={goPrevious}>
              ← Previous
            </button>
          )}
          <button type="button" className={button} disabled={!page.data?.next || page.isPlaceholderData} onClick={goNext} data-testid="sessions-next">
            Next →
          </button>
        </span>
      </nav>
    </div>
  );
}
