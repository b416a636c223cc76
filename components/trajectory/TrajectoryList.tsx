"use client";
import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { rowIndexOfCall, type Row } from "@/lib/trajectory/tree";
import { CallRow, ConversationHeader, TurnHeader } from "./Rows";

export type ScrollRequest = { callId: string; seq: number };

const estimate = (r: Row | undefined, expanded: ReadonlySet<string>) =>
  !r ? 37 : r.kind === "conversation" ? 46 : r.kind === "turn" ? 30 : expanded.has(r.node.call.call_id) ? 640 : 37;

/** Height of the sticky toolbar: scrolled-to rows land below it. */
const STICKY_OFFSET = 64;

/**
 * The trajectory rows, virtualized against the window: only the rows near the viewport are in
 * the DOM (a 2,000-call session renders a few dozen), and expanded rows are measured.
 */
export function TrajectoryList({
  rows,
  sessionId,
  filtered,
  sessionStartNs,
  maxDurationMs,
  nowNs,
  staleTurnMinutes,
  expanded,
  highlight,
  scrollRequest,
  onToggleCall,
  onToggleConversation,
  onGoToCall,
}: {
  rows: Row[];
  sessionId: string;
  filtered: boolean;
  sessionStartNs: bigint;
  maxDurationMs: number;
  nowNs: bigint;
  staleTurnMinutes: number;
  expanded: ReadonlySet<string>;
  highlight: string | null;
  scrollRequest: ScrollRequest | null;
  onToggleCall: (callId: string) => void;
  onToggleConversation: (key: string) => void;
  onGoToCall: (callId: string) => void;
}) {
  const listRef = useRef<HTMLDivElement>(null);
  const [margin, setMargin] = useState(0);

  useLayoutEffect(() => {
    const el = listRef.current;
    if (!el) return;
    const update = () => setMargin(Math.round(el.getBoundingClientRect().top + window.scrollY));
    update();
    const ro = new ResizeObserver(update);
    if (el.parentElement) ro.observe(el.parentElement);
    ro.observe(document.body);
    return () => ro.disconnect();
  }, []);

  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: (i) => estimate(rows[i], expanded),
    getItemKey: (i) => rows[i]?.key ?? i,
    overscan: 10,
    scrollMargin: margin,
    scrollPaddingStart: STICKY_OFFSET,
  });

  // Scroll a requested call into view once its row exists; dynamic heights can move it while
  // rows above are measured, so it is corrected a few times.
  const done = useRef(0);
  useEffect(() => {
    if (!scrollRequest || done.current === scrollRequest.seq) return;
    const idx = rowIndexOfCall(rows, scrollRequest.callId);
    if (idx < 0) return;
    done.current = scrollRequest.seq;
    virtualizer.scrollToIndex(idx, { align: "start" });
    const timers = [80, 250, 600].map((ms) =>
      setTimeout(() => {
        const el = document.querySelector(`[data-row-key="${CSS.escape(`k:${scrollRequest.callId}`)}"]`);
        const top = el?.getBoundingClientRect().top;
        if (top === undefined || top < STICKY_OFFSET - 4 || top > window.innerHeight - 60) virtualizer.scrollToIndex(idx, { align: "start" });
      }, ms),
    );
    return () => timers.forEach(clearTimeout);
  }, [scrollRequest, rows, virtualizer]);

  const items = virtualizer.getVirtualItems();
  return (
    <div ref={listRef} data-testid="trajectory-list" data-row-count={rows.length} style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
      {items.map((item) => {
        const row = rows[item.index];
        if (!row) return null;
        return (
          <div
            key={item.key}
            data-index={item.index}
            data-row-key={row.key}
            ref={virtualizer.measureElement}
            className="absolute left-0 top-0 w-full"
            style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
          >
            {row.kind === "conversation" ? (
              <ConversationHeader
                conv={row.conversation}
                collapsed={row.collapsed}
                onToggle={onToggleConversation}
                onGoToCall={onGoToCall}
                sessionId={sessionId}
                filtered={filtered}
              />
            ) : row.kind === "turn" ? (
              <TurnHeader turn={row.turn} nowNs={nowNs} staleTurnMinutes={staleTurnMinutes} />
            ) : (
              <CallRow
                node={row.node}
                sessionStartNs={sessionStartNs}
                maxDurationMs={maxDurationMs}
                expanded={expanded.has(row.node.call.call_id)}
                highlighted={highlight === row.node.call.call_id}
                onToggle={onToggleCall}
                inTurn={row.node.call.turn_id !== null}
              />
            )}
          </div>
        );
      })}
    </div>
  );
}
