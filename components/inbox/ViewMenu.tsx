"use client";
// The inbox's view menu: shared and private saved views with their unresolved counts, saving the
// current filters under a name, updating or deleting the open view, and copying a view's link.
import Link from "next/link";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { formatCount } from "@/components/ui/numbers";
import { useInbox } from "./context";
import { useOpenViewId, useSavedViews, useViewChange, viewQueryOf, type SavedView } from "./savedViews";
import { errorText } from "./useTriage";

export function ViewMenu() {
  const { view } = useInbox();
  const [open, setOpen] = useState(false);
  const [openId, setOpenId] = useOpenViewId();
  const views = useSavedViews();
  const root = useRef<HTMLDivElement>(null);
  const panelId = useId();

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    // Escape closes it wherever the focus is (an action that removes its own button drops the
    // focus), and only it: heard first (capture) and consumed, the inbox's Escape (which clears
    // the selection) leaves it alone
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.preventDefault();
      setOpen(false);
      root.current?.querySelector("button")?.focus();
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey, true);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey, true);
    };
  }, [open]);

  const current = viewQueryOf(view.params);
  const active = views.data?.find((v) => v.id === openId) ?? null;
  const modified = active !== null && active.query !== current;
  const shared = (views.data ?? []).filter((v) => v.shared);
  const mine = (views.data ?? []).filter((v) => !v.shared);

  return (
    <div
      ref={root}
      className="relative"
      data-testid="view-menu"
    >
      <button
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        data-testid="view-menu-button"
        onClick={() => {
          if (!open) void views.refetch();
          setOpen((o) => !o);
        }}
        className={`inline-flex max-w-72 items-center gap-1.5 rounded-md border px-2 py-1 text-xs ${active ? "border-[var(--accent)]" : "border-default text-muted hover:text-[var(--fg)]"}`}
      >
        <span className="font-medium text-[var(--fg)]">Views</span>
        {active && (
          <span className="truncate" data-testid="open-view-name">
            {active.name}
            {modified && <span className="text-muted"> (modified)</span>}
          </span>
        )}
        <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div id={panelId} role="dialog" aria-label="Saved views" className="absolute right-0 z-30 mt-1 w-80 space-y-2 rounded-md border border-default bg-[var(--bg)] p-2 text-sm shadow-lg">
          {views.isPending && <p className="px-1 text-xs text-muted">Loading views…</p>}
          {views.isError && (
            <p role="alert" className="px-1 text-xs text-red-700 dark:text-red-300">
              Could not load views: {errorText(views.error)}
            </p>
          )}
          {views.data && (
            <>
              <ViewList title="Shared with the team" testId="shared-views" views={shared} openId={openId} onPick={() => setOpen(false)} empty="No shared views yet." />
              <ViewList title="My views" testId="my-views" views={mine} openId={openId} onPick={() => setOpen(false)} empty="No private views yet." />
            </>
          )}
          {active && <OpenViewActions view={active} query={current} modified={modified} onDeleted={() => void setOpenId(null)} />}
          <SaveForm query={current} onSaved={(v) => void setOpenId(v.id)} />
        </div>
      )}
    </div>
  );
}

function ViewList({ title, testId, views, openId, onPick, empty }: { title: string; testId: string; views: SavedView[]; openId: string | null; onPick: () => void; empty: string }) {
  return (
    <section aria-label={title} data-testid={testId}>
      <h2 className="px-1 pb-0.5 text-[11px] font-medium uppercase tracking-wide text-muted">{title}</h2>
      {views.length === 0 ? (
        <p className="px-1 text-xs text-muted">{empty}</p>
      ) : (
        <ul className="max-h-56 overflow-y-auto">
          {views.map((v) => (
            <li key={v.id} data-testid="saved-view" data-view-id={v.id} className="flex items-center gap-1">
              <Link
                href={v.inbox_url}
                onClick={onPick}
                aria-current={v.id === openId ? "true" : undefined}
                title={v.mine ? undefined : `Shared by ${v.owner}`}
                className={`flex min-w-0 flex-1 items-center justify-between gap-2 rounded px-1.5 py-1 hover:bg-subtle ${v.id === openId ? "font-medium" : ""}`}
              >
                <span className="truncate">{v.name}</span>
                <span data-testid="view-count" className="shrink-0 rounded bg-subtle px-1.5 text-xs tabular-nums" title="Unresolved interruptions matching now">
                  {v.unresolved === null ? "—" : formatCount(v.unresolved)}
                </span>
              </Link>
              <CopyLink view={v} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Copies the view's stable link (/inbox/views/<id>), for a runbook or a chat message. */
function CopyLink({ view }: { view: SavedView }) {
  const [copied, setCopied] = useState(false);
  const url = `${typeof window === "undefined" ? "" : window.location.origin}${view.url}`;
  return (
    <button
      type="button"
      title={`Copy link: ${url}`}
      aria-label={`Copy link to ${view.name}`}
      data-testid="copy-view-link"
      data-url={view.url}
      onClick={() => {
        void navigator.clipboard?.writeText(url).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        });
      }}
      className="shrink-0 rounded px-1 text-xs text-muted hover:bg-subtle hover:text-[var(--fg)]"
    >
      {copied ? "Copied" : "Link"}
    </button>
  );
}

function OpenViewActions({ view, query, modified, onDeleted }: { view: SavedView; query: string; modified: boolean; onDeleted: () => void }) {
  const change = useViewChange();
  const [confirming, setConfirming] = useState(false);
  if (!view.can_edit) {
    return <p className="border-t border-default px-1 pt-2 text-xs text-muted">“{view.name}” is shared by {view.owner}; only they or an admin can change it.</p>;
  }
  return (
    <div className="flex flex-wrap items-center gap-2 border-t border-default px-1 pt-2 text-xs">
      {modified && (
        <button type="button" disabled={change.isPending} onClick={() => change.mutate({ kind: "update", id: view.id, query })} className="rounded border border-default px-2 py-0.5 hover:bg-subtle" data-testid="update-view">
          Update “{view.name}” with these filters
        </button>
      )}
      <button
        type="button"
        disabled={change.isPending}
        data-testid="delete-view"
        onClick={() => {
          if (!confirming) return setConfirming(true);
          change.mutate({ kind: "delete", id: view.id }, { onSuccess: onDeleted });
        }}
        className="rounded border border-default px-2 py-0.5 text-red-700 hover:bg-subtle dark:text-red-300"
      >
        {confirming ? `Delete “${view.name}”?` : "Delete"}
      </button>
      {change.isError && (
        <span role="alert" data-testid="view-error" className="text-red-700 dark:text-red-300">
          {errorText(change.error)}
        </span>
      )}
    </div>
  );
}

function SaveForm({ query, onSaved }: { query: string; onSaved: (v: SavedView) => void }) {
  const change = useViewChange();
  const [name, setName] = useState("");
  const [shared, setShared] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return;
    change.mutate(
      { kind: "create", name: name.trim(), query, shared },
      {
        onSuccess: (v) => {
          setName("");
          onSaved(v);
        },
      },
    );
  };
  return (
    <form onSubmit={submit} className="space-y-1.5 border-t border-default px-1 pt-2" aria-label="Save the current filters">
      <label className="block text-xs">
        <span className="text-muted">Save these filters as</span>
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={100}
          required
          placeholder="e.g. Critical in production"
          aria-label="View name"
          className="mt-0.5 w-full rounded border border-default bg-[var(--bg)] px-2 py-1 text-sm outline-none focus:border-[var(--accent)]"
        />
      </label>
      <div className="flex items-center justify-between gap-2">
        <label className="inline-flex cursor-pointer items-center gap-1.5 text-xs">
          <input type="checkbox" checked={shared} onChange={(e) => setShared(e.target.checked)} className="accent-[var(--accent)]" />
          Share with the team
        </label>
        <button type="submit" disabled={change.isPending || !name.trim()} className="rounded-md bg-[var(--accent)] px-2.5 py-1 text-xs font-medium text-white disabled:opacity-50">
          Save view
        </button>
      </div>
      {change.isError && (
        <p role="alert" data-testid="view-error" className="text-xs text-red-700 dark:text-red-300">
          {errorText(change.error)}
        </p>
      )}
    </form>
  );
}
