"use client";
// The overview's time range: kept in the URL (`?range=1h|24h|7d`, 24 h when absent) and turned
// into one fixed [start, end] window that every panel shares, re-anchored once a minute.
import { parseAsStringLiteral, useQueryState } from "nuqs";
import { useEffect, useState } from "react";
import { NS_PER_HOUR, nowNs } from "@/lib/domain/time";

export const RANGES = ["1h", "24h", "7d"] as const;
export type Range = (typeof RANGES)[number];
export const DEFAULT_RANGE: Range = "24h";

export const RANGE_INFO: Record<Range, { label: string; long: string; hours: number; buckets: number; tick: string; bucketLabel: string }> = {
  "1h": { label: "1 h", long: "the last hour", hours: 1, buckets: 12, tick: "HH:mm", bucketLabel: "5 min" },
  "24h": { label: "24 h", long: "the last 24 hours", hours: 24, buckets: 24, tick: "HH:mm", bucketLabel: "hour" },
  "7d": { label: "7 d", long: "the last 7 days", hours: 168, buckets: 28, tick: "EEE HH:mm", bucketLabel: "6 h" },
};

export function useRange() {
  return useQueryState("range", parseAsStringLiteral(RANGES).withDefault(DEFAULT_RANGE).withOptions({ history: "push" }));
}

export type Window = { startNs: string; endNs: string; anchorMs: number };

const REANCHOR_MS = 60_000;

/** The window for `range` ending now; a new range or `refresh()` re-anchors it. */
export function useWindow(range: Range): Window & { refresh: () => void } {
  const [anchor, setAnchor] = useState(() => ({ range, ms: Date.now() }));
  if (anchor.range !== range) setAnchor({ range, ms: Date.now() }); // adjust during render: one fetch per change

  useEffect(() => {
    const timer = setInterval(() => setAnchor((a) => ({ ...a, ms: Date.now() })), REANCHOR_MS);
    return () => clearInterval(timer);
  }, []);

  const end = nowNs(anchor.ms);
  const start = end - BigInt(RANGE_INFO[range].hours) * NS_PER_HOUR;
  return {
    startNs: start.toString(),
    endNs: end.toString(),
    anchorMs: anchor.ms,
    refresh: () => setAnchor((a) => ({ ...a, ms: Date.now() })),
  };
}

/**
 * The chart's window: whole buckets on round local times (…:00, …:05), the last one holding
 * "now", and one bucket more than the range so that the whole range is covered.
 */
export function chartWindow(w: Window, range: Range): { startNs: string; endNs: string; buckets: number; bucketMs: number } {
  const info = RANGE_INFO[range];
  const bucketMs = (info.hours * 3_600_000) / info.buckets;
  const tzMs = -new Date(w.anchorMs).getTimezoneOffset() * 60_000;
  const endMs = Math.floor((w.anchorMs + tzMs) / bucketMs + 1) * bucketMs - tzMs;
  const buckets = info.buckets + 1;
  const startMs = endMs - buckets * bucketMs;
  // The API's buckets are ceil((end - start + 1) / buckets) wide: an inclusive end one ns short
  // of the boundary makes them exactly `bucketMs`.
  return { startNs: String(nowNs(startMs)), endNs: String(nowNs(endMs) - 1n), buckets, bucketMs };
}

/** A link into the inbox with one filter; the range rides along when it is not the default. */
export function inboxHref(filter: Record<string, string>, range: Range): string {
  const params = new URLSearchParams(filter);
  if (range !== DEFAULT_RANGE) params.set("range", range);
  const qs = params.toString();
  return qs ? `/inbox?${qs}` : "/inbox";
}

/**
 * The inbox for one bar of the chart: its severity in its bucket's time span, of every status
 * (as the chart counts them), so that it lists what the bar showed.
 */
export function bucketInboxHref(severity: string, startMs: number, bucketMs: number): string {
  const params = new URLSearchParams({ severity, range: "custom", from: new Date(startMs).toISOString(), to: new Date(startMs + bucketMs).toISOString(), unresolved: "false" });
  return `/inbox?${params}`;
}
