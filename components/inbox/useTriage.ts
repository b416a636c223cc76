"use client";
// The inbox's writes: row actions (acknowledge, resolve through its dialog, assign to me, wake),
// group actions and bulk intents (confirmed in BulkDialog), snoozes of a row, a selection or a
// group (SnoozeDialog), and the notice that reports them.
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiRequestError } from "@/components/api/client";
import type { InterruptionRecord } from "@/components/api/types";
import { canTriage, useCurrentUser } from "@/components/shell/Providers";
import type { BulkAction, BulkIntent } from "./Bulk";
import { formatCount } from "@/components/ui/numbers";
import { compact } from "./params";
import { useRowAction, useSnooze, type Group, type SnoozeOutcome, type SnoozeTarget } from "./queries";
import type { SnoozeBody } from "./SnoozeDialog";
import type { InboxView } from "./useInboxView";
import type { Selection } from "./useSelection";

export type Notice = { tone: "ok" | "error"; text: string; at: number };

export const errorText = (e: unknown) => (e instanceof ApiRequestError ? e.message : e instanceof Error ? e.message : String(e));

function useNotice() {
  const [notice, setNotice] = useState<Notice | null>(null);
  const say = useCallback((tone: Notice["tone"], text: string) => setNotice({ tone, text, at: Date.now() }), []);
  useEffect(() => {
    if (notice?.tone !== "ok") return;
    const t = setTimeout(() => setNotice(null), 6000);
    return () => clearTimeout(t);
  }, [notice]);
  return { notice, say, dismiss: () => setNotice(null) };
}

export function useTriage(view: InboxView, selection: Selection) {
  const user = useCurrentUser();
  const triage = canTriage(user);
  const { notice, say, dismiss } = useNotice();

  const rowAction = useRowAction();
  const [pending, setPending] = useState<ReadonlySet<string>>(new Set());
  const [resolving, setResolving] = useState<InterruptionRecord | null>(null);
  // which row the resolve dialog shows now, for an answer that comes back after it changed
  const resolvingId = useRef<string | null>(null);
  useEffect(() => {
    resolvingId.current = resolving?.interruption_id ?? null;
  });
  const [resolveError, setResolveError] = useState<string | null>(null);
  const run = (r: InterruptionRecord, action: "acknowledge" | "resolve" | "assign" | "reopen", note?: string, assignee?: string | null) => {
    const id = r.interruption_id;
    setPending((s) => new Set(s).add(id));
    const done = () =>
      setPending((s) => {
        const n = new Set(s);
        n.delete(id);
        return n;
      });
    const what = `${r.interruption_type}${r.agent_name ? ` of ${r.agent_name}` : ""}`;
    // Each action's own promise: callbacks given to mutate() fire for the latest call only, so a
    // second row's action sent before the first answered left the first row disabled and silent.
    rowAction
      .mutateAsync({ id, action, note, assignee })
      .then(
        () => {
          // the dialog may show another row by now (cancelled, then opened on it): leave that one be
          if (action === "resolve") setResolving((open) => (open?.interruption_id === id ? null : open));
          const done = { resolve: "Resolved", acknowledge: "Acknowledged", reopen: "Woke" } as const;
          say("ok", action === "assign" ? (assignee ? `Assigned ${what} to you.` : `Unassigned ${what}.`) : `${done[action]} ${what}.`);
        },
        (e: unknown) => {
          // A resolve runs from its dialog, which stays open to show why it failed.
          if (action === "resolve") {
            if (resolvingId.current === id) setResolveError(errorText(e));
            else say("error", `Could not resolve ${what}: ${errorText(e)}`);
          }
          else say("error", `Could not ${action === "assign" ? (assignee ? "assign" : "unassign") : action === "reopen" ? "wake" : action}: ${errorText(e)}`);
        },
      )
      .finally(done);
  };
  const acknowledge = (r: InterruptionRecord) => {
    if (!triage) return say("error", `Your role (${user.role}) cannot acknowledge interruptions.`);
    if (r.status !== "open") return say("ok", `Already ${r.status}.`);
    run(r, "acknowledge");
  };
  const askResolve = (r: InterruptionRecord) => {
    if (!triage) return say("error", `Your role (${user.role}) cannot resolve interruptions.`);
    if (r.status === "resolved") return say("ok", "Already resolved.");
    setResolveError(null);
    setResolving(r);
  };
  const confirmResolve = (note: string) => {
    if (!resolving) return;
    setResolveError(null);
    run(resolving, "resolve", note);
  };
  /** "Assign to me" in one key; on one of mine it unassigns. */
  const assignToMe = (r: InterruptionRecord) => {
    if (!triage) return say("error", `Your role (${user.role}) cannot assign interruptions.`);
    if (pending.has(r.interruption_id)) return;
    run(r, "assign", undefined, r.assignee === user.email ? null : user.email);
  };

  /** A snoozed row back to open by hand. */
  const wake = (r: InterruptionRecord) => {
    if (!triage) return say("error", `Your role (${user.role}) cannot wake interruptions.`);
    if (r.status !== "snoozed") return say("ok", `Not snoozed: ${r.status}.`);
    run(r, "reopen");
  };

  // Snoozes: a row, the selection or a group, after SnoozeDialog asked until when.
  const snooze = useSnooze();
  const [snoozing, setSnoozing] = useState<SnoozeTarget | null>(null);
  const askSnoozeFor = (target: SnoozeTarget) => {
    snooze.reset();
    setSnoozing(target);
  };
  const askSnooze = (r: InterruptionRecord) => {
    if (!triage) return say("error", `Your role (${user.role}) cannot snooze interruptions.`);
    if (r.status === "resolved") return say("ok", "Resolved: reopen it before snoozing.");
    askSnoozeFor({ kind: "row", row: r });
  };
  const askSnoozeGroup = (g: Group) => {
    if (!triage) return say("error", `Your role (${user.role}) cannot snooze interruptions.`);
    askSnoozeFor({ kind: "group", group: g });
  };
  const confirmSnooze = (body: SnoozeBody) => {
    if (!snoozing) return;
    snooze.mutate(
      { target: snoozing, body },
      {
        onSuccess: (out) => {
          setSnoozing(null);
          if (out.kind === "selection") selection.clear();
          say("ok", snoozedText(out));
        },
      },
    );
  };

  // Group actions: bulk by filter (the view's filters plus the fingerprint), after a confirmation.
  const [bulk, setBulk] = useState<BulkIntent | null>(null);
  const groupLabel = (g: Group) => `${g.interruption_type}${g.agent_name ? ` · ${g.agent_name}` : ""}`;
  const groupAction = (g: Group, action: "acknowledge" | "resolve") => {
    if (!triage) return say("error", `Your role (${user.role}) cannot ${action} interruptions.`);
    const n = action === "acknowledge" ? g.by_status.open : g.by_status.open + g.by_status.acknowledged + g.by_status.snoozed;
    if (n === 0) return say("ok", action === "acknowledge" ? "Nothing open in this group." : "Everything in this group is resolved.");
    const narrow = action === "acknowledge" ? { status: "open" } : { resolved: "false" };
    setBulk({ action, count: n, all: false, ids: [], group: { filter: compact({ ...view.filter, ...narrow, fingerprint: g.fingerprint }), label: groupLabel(g) } });
  };
  const bulkOnSelection = (action: BulkAction | "snooze") => {
    if (action !== "snooze") return setBulk({ action, count: selection.count, all: selection.all, ids: [...selection.ids] });
    if (!triage) return say("error", `Your role (${user.role}) cannot snooze interruptions.`);
    // "all matching": by the view's filter, unresolved rows only (like bulk)
    askSnoozeFor(
      selection.all
        ? { kind: "selection", count: selection.count, ids: null, filter: compact({ ...view.filter, resolved: "false" }) }
        : { kind: "selection", count: selection.count, ids: [...selection.ids], filter: null },
    );
  };
  const bulkDone = (text: string) => {
    setBulk(null);
    selection.clear();
    say("ok", text);
    setRefocus(true);
  };
  // The bar's button the closed dialog gives focus back to is gone with the selection: the
  // keyboard goes on from the table's focused row, not from <body>. (This effect runs after the
  // dialog's own, which closes it.)
  const [refocus, setRefocus] = useState(false);
  const { focusRow, focused } = selection;
  useEffect(() => {
    if (!refocus || bulk !== null) return;
    setRefocus(false);
    focusRow(Math.max(0, focused));
  }, [refocus, bulk, focusRow, focused]);

  return {
    user,
    triage,
    notice,
    dismiss,
    pending,
    resolving,
    resolveError,
    cancelResolve: () => setResolving(null),
    confirmResolve,
    acknowledge,
    askResolve,
    assignToMe,
    wake,
    snoozing,
    snoozePending: snooze.isPending,
    snoozeError: snooze.error ? errorText(snooze.error) : null,
    askSnooze,
    askSnoozeGroup,
    confirmSnooze,
    cancelSnooze: () => setSnoozing(null),
    groupAction,
    bulk,
    bulkOnSelection,
    closeBulk: () => setBulk(null),
    bulkDone,
    dialogOpen: resolving !== null || bulk !== null || snoozing !== null,
  };
}

export type Triage = ReturnType<typeof useTriage>;

const noun = (n: number) => `${formatCount(n)} interruption${n === 1 ? "" : "s"}`;

function snoozedText(out: SnoozeOutcome): string {
  if (out.kind === "row") return `Snoozed ${out.record.interruption_type}${out.record.agent_name ? ` of ${out.record.agent_name}` : ""}.`;
  if (out.kind === "group") return `Snoozed the group: ${noun(out.result.changed)} now, and new ones as they arrive.`;
  const skipped = out.result.matched - out.result.changed;
  return `Snoozed ${noun(out.result.changed)}${skipped > 0 ? ` (${formatCount(skipped)} resolved, left as they are)` : ""}.`;
}
