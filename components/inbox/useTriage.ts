"use client";
// The inbox's writes: row actions (acknowledge, resolve through its dialog, assign to me), group
// actions and bulk intents (confirmed in BulkDialog), and the notice that reports them.
import { useCallback, useEffect, useState } from "react";
import { ApiRequestError } from "@/components/api/client";
import type { InterruptionRecord } from "@/components/api/types";
import { canTriage, useCurrentUser } from "@/components/shell/Providers";
import type { BulkAction, BulkIntent } from "./Bulk";
import { compact } from "./params";
import { useRowAction, type Group } from "./queries";
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
  const [resolveError, setResolveError] = useState<string | null>(null);
  const run = (r: InterruptionRecord, action: "acknowledge" | "resolve" | "assign", note?: string, assignee?: string | null) => {
    const id = r.interruption_id;
    setPending((s) => new Set(s).add(id));
    const done = () =>
      setPending((s) => {
        const n = new Set(s);
        n.delete(id);
        return n;
      });
    const what = `${r.interruption_type}${r.agent_name ? ` of ${r.agent_name}` : ""}`;
    rowAction.mutate(
      { id, action, note, assignee },
      {
        onSuccess: () => {
          if (action === "resolve") setResolving(null);
          say(
            "ok",
            action === "assign" ? (assignee ? `Assigned ${what} to you.` : `Unassigned ${what}.`) : `${action === "resolve" ? "Resolved" : "Acknowledged"} ${what}.`,
          );
        },
        onError: (e) => {
          // A resolve runs from its dialog, which stays open to show why it failed.
          if (action === "resolve") setResolveError(errorText(e));
          else say("error", `Could not ${action === "assign" ? (assignee ? "assign" : "unassign") : action}: ${errorText(e)}`);
        },
        onSettled: done,
      },
    );
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

  // Group actions: bulk by filter (the view's filters plus the fingerprint), after a confirmation.
  const [bulk, setBulk] = useState<BulkIntent | null>(null);
  const groupLabel = (g: Group) => `${g.interruption_type}${g.agent_name ? ` · ${g.agent_name}` : ""}`;
  const groupAction = (g: Group, action: "acknowledge" | "resolve") => {
    if (!triage) return say("error", `Your role (${user.role}) cannot ${action} interruptions.`);
    const n = action === "acknowledge" ? g.by_status.open : g.by_status.open + g.by_status.acknowledged;
    if (n === 0) return say("ok", action === "acknowledge" ? "Nothing open in this group." : "Everything in this group is resolved.");
    const narrow = action === "acknowledge" ? { status: "open" } : { resolved: "false" };
    setBulk({ action, count: n, all: false, ids: [], group: { filter: compact({ ...view.filter, ...narrow, fingerprint: g.fingerprint }), label: groupLabel(g) } });
  };
  const bulkOnSelection = (action: BulkAction) => setBulk({ action, count: selection.count, all: selection.all, ids: [...selection.ids] });
  const bulkDone = (text: string) => {
    setBulk(null);
    selection.clear();
    say("ok", text);
  };

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
    groupAction,
    bulk,
    bulkOnSelection,
    closeBulk: () => setBulk(null),
    bulkDone,
    dialogOpen: resolving !== null || bulk !== null,
  };
}

export type Triage = ReturnType<typeof useTriage>;
