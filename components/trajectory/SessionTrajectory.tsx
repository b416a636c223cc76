"use client";
import Link from "next/link";
import { useQueryState } from "nuqs";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiRequestError } from "@/components/api/client";
import { nowNs } from "@/lib/domain/time";
import { callDurationMs } from "@/lib/trajectory/ns";
import { markedCalls, nextMarkedCall } from "@/lib/trajectory/navigation";
import { timelineLayout } from "@/lib/trajectory/timeline";
import { buildTrajectory, conversationsShown, flattenRows } from "@/lib/trajectory/tree";
import { CALL_PAGE_SIZE, useSession, useSessionCalls, useSessionInterruptions } from "./queries";
import { SessionHeader } from "./SessionHeader";
import { TimelineChart } from "./TimelineChart";
import { TrajectoryList, type ScrollRequest } from "./TrajectoryList";

/** Calls loaded in the background without asking; beyond that, "Load more". */
const AUTO_LOAD_CALLS = 10_000;

const isTyping = (t: EventTarget | null) => t instanceof HTMLElement && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName));

/** `staleTurnMinutes`: after how long without a call an open turn reads as unsettled (the sweep's setting). */
export function SessionTrajectory({ sessionId, staleTurnMinutes }: { sessionId: string; staleTurnMinutes: number }) {
  const [callParam, setCallParam] = useQueryState("call", { history: "replace" });
  const [convParam, setConvParam] = useQueryState("conversation", { history: "push" });
  const session = useSession(sessionId);
  const interruptions = useSessionInterruptions(sessionId);
  const calls = useSessionCalls(sessionId, convParam);

  const allCalls = useMemo(() => calls.data?.pages.flat() ?? [], [calls.data]);
  const tree = useMemo(() => buildTrajectory(conversationsShown(session.data?.conversations ?? [], convParam), allCalls), [session.data, convParam, allCalls]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const rows = useMemo(() => flattenRows(tree, collapsed), [tree, collapsed]);
  const layout = useMemo(() => timelineLayout(tree), [tree]);
  const maxDurationMs = useMemo(() => allCalls.reduce((m, c) => Math.max(m, callDurationMs(c) ?? 0), 0), [allCalls]);
  const marked = useMemo(() => markedCalls(tree), [tree]);
  const loadedIds = useMemo(() => new Set(tree.byId.keys()), [tree]);
  const [now] = useState(() => nowNs());

  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [highlight, setHighlight] = useState<string | null>(null);
  const [scrollRequest, setScrollRequest] = useState<ScrollRequest | null>(null);
  const [autoLimit, setAutoLimit] = useState(AUTO_LOAD_CALLS);
  const seq = useRef(0);
  const handledParam = useRef<string | null>(null);

  // Page through the calls (`after` = the last call of the previous page) in the background,
  // and past the limit when a call asked for by the URL is not loaded yet.
  const wanted = callParam && !tree.byId.has(callParam);
  const { hasNextPage, isFetchingNextPage, isError: callsError, fetchNextPage } = calls;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !callsError && (allCalls.length < autoLimit || wanted)) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, callsError, allCalls.length, autoLimit, wanted, fetchNextPage]);

  const focusCall = useCallback(
    (callId: string, expand: boolean) => {
      const node = tree.byId.get(callId);
      if (!node) return false;
      setCollapsed((s) => {
        if (!s.has(node.conversationKey)) return s;
        const next = new Set(s);
        next.delete(node.conversationKey);
        return next;
      });
      if (expand) setExpanded((s) => (s.has(callId) ? s : new Set(s).add(callId)));
      setHighlight(callId);
      setScrollRequest({ callId, seq: ++seq.current });
      return true;
    },
    [tree],
  );

  /** Shows a call: scrolls to it, highlights it, optionally opens it, and puts it in the URL. */
  const goToCall = useCallback(
    (callId: string, expand = true) => {
      if (focusCall(callId, expand)) handledParam.current = callId;
      else handledParam.current = null; // not loaded yet: the URL effect opens it once it is
      void setCallParam(callId);
    },
    [focusCall, setCallParam],
  );

  // `?call=<id>` opens and scrolls to that call (once it is loaded).
  useEffect(() => {
    if (!callParam || handledParam.current === callParam) return;
    if (focusCall(callParam, true)) handledParam.current = callParam;
  }, [callParam, focusCall]);

  const stepMarked = useCallback(
    (dir: 1 | -1) => {
      const step = nextMarkedCall(tree, highlight, dir);
      if (!step) return;
      if (step.wrapped && hasNextPage) setAutoLimit((n) => Math.max(n, allCalls.length) + CALL_PAGE_SIZE * 4);
      goToCall(step.callId, false);
    },
    [tree, highlight, hasNextPage, allCalls.length, goToCall],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
      if (e.key === "n") stepMarked(1);
      else if (e.key === "p" || e.key === "N") stepMarked(-1);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [stepMarked]);

  const toggleCall = useCallback((callId: string) => {
    setExpanded((s) => {
      const next = new Set(s);
      if (next.has(callId)) next.delete(callId);
      else next.add(callId);
      return next;
    });
  }, []);
  const toggleConversation = useCallback((key: string) => {
    setCollapsed((s) => {
      const next = new Set(s);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  }, []);

  if (session.isPending) return <p className="py-8 text-sm text-muted">Loading session…</p>;
  if (session.isError) {
    const notFound = session.error instanceof ApiRequestError && session.error.status === 404;
    return (
      <div className="py-8" role="alert">
        <h1 className="text-lg font-semibold">{notFound ? "Session not found" : "Could not load the session"}</h1>
        <p className="mt-1 text-sm text-muted">{notFound ? `No session has the id ${sessionId}.` : session.error.message}</p>
        <Link href="/sessions" className="mt-3 inline-block text-sm accent hover:underline">
          ← All sessions
        </Link>
      </div>
    );
  }

  const s = session.data;
  const filterConv = convParam ? s.conversations.find((c) => c.conversation_id === convParam) : undefined;
  const expectedCalls = convParam ? filterConv?.call_count ?? allCalls.length : s.call_count;
  const position = highlight ? marked.indexOf(highlight) : -1;
  const missingCall = callParam && !tree.byId.has(callParam) && !hasNextPage && !calls.isFetching && calls.isSuccess;

  return (
    <div className="flex flex-col gap-4" data-testid="trajectory">
      <SessionHeader session={s} interruptions={interruptions.data} onGoToCall={(id) => goToCall(id)} loadedCallIds={loadedIds} />

      {layout.bars.length > 0 && <TimelineChart layout={layout} selectedCallId={highlight} onSelect={(id) => goToCall(id)} />}

      <div className="sticky top-0 z-20 -mx-4 flex flex-wrap items-center gap-2 border-b border-default bg-[var(--bg)]/95 px-4 py-2 backdrop-blur">
        <h2 className="mr-2 text-sm font-semibold">Trajectory</h2>
        <div className="flex items-center overflow-hidden rounded-md border border-default">
          <button
            type="button"
            data-testid="prev-interruption"
            disabled={!marked.length}
            onClick={() => stepMarked(-1)}
            className="px-2 py-1 text-xs hover:bg-subtle disabled:opacity-40"
            title="Previous interruption (p)"
          >
            ◀
          </button>
          <button
            type="button"
            data-testid="next-interruption"
            disabled={!marked.length}
            onClick={() => stepMarked(1)}
            className="border-l border-default px-2.5 py-1 text-xs font-medium hover:bg-subtle disabled:opacity-40"
            title="Next interruption (n)"
          >
            Next interruption ▶
          </button>
        </div>
        <span className="text-xs text-muted tabular-nums" data-testid="marker-position">
          {marked.length === 0 ? "no interruptions on loaded calls" : position >= 0 ? `${position + 1} of ${marked.length} marked calls` : `${marked.length} marked calls`}
        </span>
        {convParam && (
          <span className="inline-flex items-center gap-1 rounded-full border border-default bg-subtle py-0.5 pl-2 pr-1 text-xs" data-testid="conversation-filter">
            conversation <span className="max-w-[14rem] truncate font-mono">{convParam}</span>
            <button type="button" aria-label="Show all conversations" className="rounded-full px-1 hover:bg-[var(--bg)]" onClick={() => void setConvParam(null)}>
              ✕
            </button>
          </span>
        )}
        <span className="ml-auto flex items-center gap-3 text-xs text-muted">
          <span data-testid="calls-loaded" className="tabular-nums">
            {calls.isPending
              ? "loading calls…"
              : hasNextPage
                ? `${allCalls.length.toLocaleString()} of ${expectedCalls.toLocaleString()} calls loaded`
                : `${allCalls.length.toLocaleString()} calls`}
          </span>
          {hasNextPage && !isFetchingNextPage && allCalls.length >= autoLimit && (
            <button type="button" className="rounded border border-default px-2 py-0.5 hover:bg-subtle" onClick={() => setAutoLimit((n) => n + AUTO_LOAD_CALLS)}>
              Load more
            </button>
          )}
          <button
            type="button"
            className="rounded border border-default px-2 py-0.5 hover:bg-subtle"
            onClick={() => setCollapsed(collapsed.size ? new Set() : new Set(tree.conversations.map((c) => c.key)))}
          >
            {collapsed.size ? "Expand conversations" : "Collapse conversations"}
          </button>
          {expanded.size > 0 && (
            <button type="button" className="rounded border border-default px-2 py-0.5 hover:bg-subtle" onClick={() => setExpanded(new Set())}>
              Close {expanded.size} open call{expanded.size === 1 ? "" : "s"}
            </button>
          )}
        </span>
      </div>

      {missingCall && (
        <p role="status" className="rounded-md border border-amber-600/50 bg-amber-500/5 px-3 py-2 text-xs">
          Call <span className="font-mono">{callParam}</span> is not {convParam ? "in this conversation" : "in this session"}.
          {convParam && (
            <button type="button" className="ml-2 accent hover:underline" onClick={() => void setConvParam(null)}>
              Show all conversations
            </button>
          )}
        </p>
      )}
      {calls.isError && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          Could not load calls: {calls.error.message}{" "}
          <button type="button" className="accent hover:underline" onClick={() => void calls.refetch()}>
            Retry
          </button>
        </p>
      )}
      {calls.isSuccess && allCalls.length === 0 && <p className="text-sm text-muted">This session has no calls{convParam ? " in this conversation" : ""}.</p>}

      {tree.startNs !== null && (
        <TrajectoryList
          rows={rows}
          sessionId={sessionId}
          filtered={!!convParam}
          sessionStartNs={tree.startNs}
          maxDurationMs={maxDurationMs}
          nowNs={now}
          staleTurnMinutes={staleTurnMinutes}
          expanded={expanded}
          highlight={highlight}
          scrollRequest={scrollRequest}
          onToggleCall={toggleCall}
          onToggleConversation={toggleConversation}
          onGoToCall={(id) => goToCall(id)}
        />
      )}
      {isFetchingNextPage && <p className="py-2 text-center text-xs text-muted">Loading more calls…</p>}
    </div>
  );
}
