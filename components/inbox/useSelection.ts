"use client";
// The checked rows (page ids, or "all N matching" by filter) and the keyboard-focused row; both
// reset when the view changes.
import { useEffect, useMemo, useRef, useState } from "react";
import type { InterruptionRecord } from "@/components/api/types";
import type { InboxView } from "./useInboxView";

export function useSelection(view: InboxView) {
  const { viewKey, rows, grouped, groups, total } = view;
  // the previous view's rows, shown (dimmed) until this view's arrive: not to be picked, since
  // the selection is this view's and a bulk action would act on rows no longer shown
  const stale = view.list.isPlaceholderData;
  const [selection, setSelection] = useState({ key: viewKey, ids: new Set<string>(), all: false });
  const [focused, setFocused] = useState(-1);
  if (selection.key !== viewKey) {
    setSelection({ key: viewKey, ids: new Set(), all: false });
    setFocused(-1);
  }
  const rowRefs = useRef<(HTMLTableRowElement | null)[]>([]);
  const groupRefs = useRef<(HTMLTableRowElement | null)[]>([]);

  const focusable = grouped ? groups.length : rows.length;
  useEffect(() => {
    if (focused >= focusable) setFocused(focusable - 1);
  }, [focusable, focused]);

  const focusRow = (i: number) => {
    if (!focusable) return;
    const next = Math.max(0, Math.min(focusable - 1, i));
    setFocused(next);
    const refs = grouped ? groupRefs : rowRefs;
    refs.current[next]?.focus();
    refs.current[next]?.scrollIntoView({ block: "nearest" });
  };

  // only rows on screen count (and are acted on)
  const shown = useMemo(() => new Set(rows.map((r) => r.interruption_id)), [rows]);
  const ids = useMemo(() => new Set([...selection.ids].filter((id) => shown.has(id))), [selection.ids, shown]);

  const toggle = (r: InterruptionRecord) =>
    !stale &&
    setSelection((s) => {
      const ids = new Set(s.ids);
      if (ids.has(r.interruption_id)) ids.delete(r.interruption_id);
      else ids.add(r.interruption_id);
      return { ...s, ids, all: false };
    });
  const togglePage = () =>
    !stale &&
    setSelection((s) => {
      const everyShown = rows.length > 0 && rows.every((r) => s.ids.has(r.interruption_id));
      return { ...s, all: false, ids: everyShown ? new Set() : new Set(rows.map((r) => r.interruption_id)) };
    });
  const selectAll = () => !stale && setSelection((s) => ({ ...s, all: true }));
  const clear = () => setSelection((s) => ({ ...s, ids: new Set(), all: false }));

  return {
    ids,
    all: selection.all,
    count: selection.all ? (total ?? 0) : ids.size,
    stale,
    focused,
    setFocused,
    focusRow,
    focusedRow: !grouped && focused >= 0 ? rows[focused] : undefined,
    focusedGroup: grouped && focused >= 0 ? groups[focused] : undefined,
    rowRefs,
    groupRefs,
    toggle,
    togglePage,
    selectAll,
    clear,
  };
}

export type Selection = ReturnType<typeof useSelection>;
