"use client";
import Link from "next/link";
import type { ReactNode } from "react";
import type { CallMarker } from "@/lib/trajectory/types";
import { SEV_BG, SEV_BG_UNKNOWN } from "@/components/ui/severity";
import { TURN_END_HELP, TURN_END_STYLE } from "./styles";

/** An interruption on a call: severity as colour and text, linking to its detail page. */
export function MarkerChip({ marker, compact = false }: { marker: CallMarker; compact?: boolean }) {
  return (
    <Link
      href={`/interruptions/${encodeURIComponent(marker.interruption_id)}`}
      prefetch={false}
      data-testid="interruption-marker"
      data-interruption-id={marker.interruption_id}
      data-severity={marker.severity}
      title={`${marker.interruption_type} · ${marker.severity}${marker.status ? ` · ${marker.status}` : ""}`}
      onClick={(e) => e.stopPropagation()}
      className={`inline-flex max-w-full items-center gap-1 truncate rounded px-1.5 py-px text-[11px] font-medium leading-4 hover:opacity-90 ${SEV_BG[marker.severity] ?? SEV_BG_UNKNOWN} ${marker.status === "resolved" ? "opacity-60 line-through decoration-1" : ""}`}
    >
      <span>{marker.interruption_type}</span>
      {!compact && <span className="font-normal opacity-90">· {marker.severity}</span>}
    </Link>
  );
}

/** How a turn ended (completed, steered, drained, dispatched, awaiting, failed, …). */
export function TurnEndChip({ label }: { label: string }) {
  return (
    <span
      data-testid="turn-end"
      data-reason={label}
      title={TURN_END_HELP[label] ?? label}
      className={`inline-flex items-center rounded-full border px-2 py-px text-[11px] font-medium leading-4 ${TURN_END_STYLE[label] ?? "border-[var(--border)]"}`}
    >
      {label}
    </span>
  );
}

/** A small neutral pill. */
export function Pill({ children, title, tone = "neutral" }: { children: ReactNode; title?: string; tone?: "neutral" | "danger" | "warn" | "ok" }) {
  const toneClass =
    tone === "danger"
      ? "border-red-600/60 text-red-700 dark:text-red-400"
      : tone === "warn"
        ? "border-amber-600/60 text-amber-700 dark:text-amber-400"
        : tone === "ok"
          ? "border-green-600/60 text-green-700 dark:text-green-400"
          : "border-default text-muted";
  return (
    <span title={title} className={`inline-flex items-center gap-1 rounded border px-1.5 py-px text-[11px] leading-4 ${toneClass}`}>
      {children}
    </span>
  );
}
