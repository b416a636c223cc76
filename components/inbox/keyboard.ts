"use client";
import { useRouter } from "next/navigation";
import { useEffect, useRef, type RefObject } from "react";
import type { InboxState } from "./context";

export type KeyHandlers = {
  enabled: boolean;
  onMove: (delta: 1 | -1) => void;
  onOpen: () => void;
  onAcknowledge: () => void;
  onResolve: () => void;
  /** Snooze the focused row or group (a dialog asks until when). */
  onSnooze: () => void;
  /** Assign the focused row to me (or unassign it when already mine). */
  onAssign: () => void;
  onSelect: () => void;
  onSearch: () => void;
  onEscape: () => void;
};

/** Where typed characters belong to a field, not to the inbox's shortcuts. */
function isTyping(el: Element | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable) return true;
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return true;
  if (el instanceof HTMLInputElement) return !["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"].includes(el.type);
  return false;
}

/** Menus that open over the inbox: ViewMenu's panel (a dialog) and MultiSelect's (marked). */
const POPOVERS = "[role=dialog], [data-popover]";

/** Controls that already do something on Enter (a link, a button, a checkbox). */
const isControl = (el: Element | null) => el instanceof HTMLElement && !!el.closest("a, button, input, select, textarea, summary, [role=button]");

/** The inbox shortcuts: j/k move, o/Enter open, a acknowledge, r resolve, s snooze, m assign to me, x select, / search. */
export function useKeyboard(handlers: KeyHandlers) {
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const h = latest.current;
      if (!h.enabled || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
      if (isTyping(e.target as Element) || document.querySelector("dialog[open]")) return;
      // inside an open menu (saved views, a filter's checkboxes) keys belong to it, not to the row behind
      if ((e.target as Element)?.closest?.(POPOVERS)) return;
      const act = (fn: () => void) => {
        e.preventDefault();
        fn();
      };
      switch (e.key) {
        case "j":
        case "ArrowDown":
          if (e.key === "ArrowDown" && !(e.target as Element)?.closest?.("tbody")) return;
          return act(() => h.onMove(1));
        case "k":
        case "ArrowUp":
          if (e.key === "ArrowUp" && !(e.target as Element)?.closest?.("tbody")) return;
          return act(() => h.onMove(-1));
        case "o":
          return act(h.onOpen);
        case "Enter":
          if (isControl(e.target as Element)) return;
          return act(h.onOpen);
        case "a":
          return act(h.onAcknowledge);
        case "r":
          return act(h.onResolve);
        case "s":
          return act(h.onSnooze);
        case "m":
          return act(h.onAssign);
        case "x":
          return act(h.onSelect);
        case "/":
          return act(h.onSearch);
        case "Escape":
          return h.onEscape();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
}

/** Binds the shortcuts to the inbox's focused row or group. */
export function useInboxKeyboard({ view, selection, actions }: InboxState, searchRef: RefObject<HTMLInputElement | null>) {
  const router = useRouter();
  const { focused, focusedRow, focusedGroup } = selection;
  const open = (i: number) => {
    if (view.grouped) {
      if (view.groups[i]) view.showMembers(view.groups[i]);
      return;
    }
    const r = view.rows[i];
    if (r) router.push(`/interruptions/${encodeURIComponent(r.interruption_id)}`);
  };
  useKeyboard({
    enabled: !actions.dialogOpen,
    onMove: (d) => selection.focusRow(focused < 0 ? 0 : focused + d),
    onOpen: () => focused >= 0 && open(focused),
    onAcknowledge: () => (focusedGroup ? actions.groupAction(focusedGroup, "acknowledge") : focusedRow && actions.acknowledge(focusedRow)),
    onResolve: () => (focusedGroup ? actions.groupAction(focusedGroup, "resolve") : focusedRow && actions.askResolve(focusedRow)),
    onSnooze: () => (focusedGroup ? actions.askSnoozeGroup(focusedGroup) : focusedRow && actions.askSnooze(focusedRow)),
    onAssign: () => focusedRow && actions.assignToMe(focusedRow),
    onSelect: () => actions.triage && focusedRow && selection.toggle(focusedRow),
    onSearch: () => {
      searchRef.current?.focus();
      searchRef.current?.select();
    },
    onEscape: () => (selection.ids.size || selection.all ? selection.clear() : undefined),
  });
}
