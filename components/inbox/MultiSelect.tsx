"use client";
import { useEffect, useId, useRef, useState, type ReactNode } from "react";

/** A dropdown of checkboxes (with a search field for long lists); closes on Escape or outside click. */
export function MultiSelect({
  label,
  options,
  selected,
  onChange,
  searchable = false,
  render,
  testId,
}: {
  label: string;
  options: readonly string[];
  selected: readonly string[];
  onChange: (next: string[]) => void;
  searchable?: boolean;
  render?: (option: string) => ReactNode;
  testId?: string;
}) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const root = useRef<HTMLDivElement>(null);
  const panelId = useId();

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open]);

  // Selected values stay listed even when no longer among the suggestions.
  const all = [...new Set([...selected, ...options])];
  const needle = text.trim().toLowerCase();
  const shown = needle ? all.filter((o) => o.toLowerCase().includes(needle)) : all;
  const toggle = (o: string) => onChange(selected.includes(o) ? selected.filter((s) => s !== o) : [...selected, o]);
  const summary = selected.length === 0 ? "any" : selected.length === 1 ? selected[0] : `${selected.length} selected`;

  return (
    <div
      ref={root}
      className="relative"
      data-testid={testId}
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          e.stopPropagation();
          setOpen(false);
          root.current?.querySelector("button")?.focus();
        }
      }}
    >
      <button
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((v) => !v)}
        className={`inline-flex max-w-56 items-center gap-1.5 rounded-md border px-2 py-1 text-xs ${
          selected.length ? "border-[var(--accent)] text-[var(--fg)]" : "border-default text-muted hover:text-[var(--fg)]"
        }`}
      >
        <span className="font-medium text-[var(--fg)]">{label}</span>
        <span className="truncate">{summary}</span>
        <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div
          id={panelId}
          role="group"
          aria-label={label}
          data-popover
          className="absolute left-0 z-30 mt-1 w-64 rounded-md border border-default bg-[var(--bg)] p-1 text-sm shadow-lg"
        >
          {searchable && (
            <input
              type="search"
              autoFocus
              value={text}
              onChange={(e) => setText(e.target.value)}
              placeholder={`Filter ${label.toLowerCase()}…`}
              aria-label={`Filter ${label.toLowerCase()} options`}
              className="mb-1 w-full rounded border border-default bg-[var(--bg)] px-2 py-1 text-xs outline-none focus:border-[var(--accent)]"
            />
          )}
          <ul className="max-h-72 overflow-y-auto">
            {shown.map((o) => (
              <li key={o}>
                <label className="flex cursor-pointer items-center gap-2 rounded px-2 py-1 hover:bg-subtle">
                  <input type="checkbox" checked={selected.includes(o)} onChange={() => toggle(o)} className="accent-[var(--accent)]" />
                  <span className="min-w-0 truncate">{render ? render(o) : o}</span>
                </label>
              </li>
            ))}
            {!shown.length && <li className="px-2 py-1 text-xs text-muted">No matches</li>}
          </ul>
          {selected.length > 0 && (
            <button type="button" onClick={() => onChange([])} className="mt-1 w-full rounded px-2 py-1 text-left text-xs text-muted hover:bg-subtle">
              Clear {label.toLowerCase()}
            </button>
          )}
        </div>
      )}
    </div>
  );
}
