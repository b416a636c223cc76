// What wakes a snooze, in a few words for the inbox ("until Dec 2 15:00 · 5 more · escalation").
import { format } from "date-fns";
import type { SnoozeRecord } from "@/components/api/types";
import { nsToDate } from "@/components/ui/format";

export function wakesWhen(s: Pick<SnoozeRecord, "until_ns" | "until_occurrences" | "occurrences" | "until_escalates" | "scope">): string {
  const parts: string[] = [];
  if (s.until_ns !== null) parts.push(`until ${format(nsToDate(s.until_ns), "MMM d HH:mm")}`);
  if (s.until_occurrences !== null) parts.push(`${Math.max(0, s.until_occurrences - s.occurrences)} more`);
  if (s.until_escalates) parts.push("escalation");
  if (s.scope === "mute") parts.unshift("muted");
  return parts.join(" · ");
}
