import { format, formatDistanceToNowStrict } from "date-fns";
import { NS_PER_MS } from "@/lib/domain/time";
import type { Ns } from "../api/types";

export const nsToDate = (ns: Ns | bigint) => new Date(Number(BigInt(ns) / NS_PER_MS));
export const formatTime = (ns: Ns | bigint) => format(nsToDate(ns), "yyyy-MM-dd HH:mm:ss");
export const timeAgo = (ns: Ns | bigint) => `${formatDistanceToNowStrict(nsToDate(ns))} ago`;

export function formatDurationNs(ns: Ns | bigint | null): string {
  if (ns === null) return "—";
  const ms = Number(BigInt(ns) / NS_PER_MS);
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export const shortId = (id: string | null, n = 8) => (id ? (id.length > n + 1 ? `${id.slice(0, n)}…` : id) : "—");
