"use client";
// The checked rows (page ids, or "all N matching" by filter) and the keyboard-focused row; both
// reset when the view changes.
import { useEffect, useRef, useState } from "react";
import type { InterruptionRecord } from "@/components/api/types";
import type { InboxView } from "./useInboxView";

export function useSelection(view: InboxView) {
  const { viewKey, rows, grouped, groups, total } = view;
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

  const toggle = (r: InterruptionRecord) =>
    setSelection((s) => {
      const ids = new Set(s.ids);
      if (ids.has(r.interruption_id)) ids.delete(r.interruption_id);
      else ids.add(r.interruption_id);
      return { ...s, ids, all: false };
    });
  const togglePage = () =>
    setSelection((s) => {
      const everyShown = rows.length > 0 && rows.every((r) => s.ids.has(r.interruption_id));
      return { ...s, all: false, ids: everyShown ? new Set() : new Set(rows.map((r) => r.interruption_id)) };
    });
  const selectAll = () => setSelection((s) => ({ ...s, all: true }));
  const clear = () => setSelection((s) => ({ ...s, ids: new Set(), all: false }));

  return {
    ids: selection.ids,
    all: selection.all,
    count: selection.all ? (total ?? 0) : selection.ids.size,
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
