"use client";
import { Facts } from "@/components/ui/Facts";
import Link from "next/link";
import { ApiRequestError } from "@/components/api/client";
import type { InterruptionRecord } from "@/components/api/types";
import { formatTime } from "@/components/ui/format";
import { CallMessagesView } from "@/components/trajectory/CallMessages";
import { useCall } from "@/components/trajectory/queries";
import { parseDetail, str } from "@/lib/trajectory/evidence";
import { callDurationMs, formatMs } from "@/lib/trajectory/ns";
import { notRecordedSize } from "@/lib/trajectory/recording";
import { Section } from "@/components/ui/Section";

/** The call around the interruption: its last few input messages, its output, tool pairing. */
export function CallContext({ record }: { record: InterruptionRecord }) {
  const q = useCall(record.call_id);
  const toolCallId = str(parseDetail(record.detail)?.tool_call_id);
  if (!record.call_id) {
    return (
      <Section title="Messages around the call">
        <p className="text-sm text-muted">
          This interruption is not tied to one call{record.interruption_type === "agent_crash" ? " (the process itself exited)" : ""}.
          {record.session_id && (
            <>
              {" "}
              See the{" "}
              <Link className="accent hover:underline" href={`/sessions/${encodeURIComponent(record.session_id)}`}>
                session trajectory
              </Link>{" "}
              for what it was doing.
            </>
          )}
        </p>
      </Section>
    );
  }
  const trajectoryHref = record.session_id ? `/sessions/${encodeURIComponent(record.session_id)}?call=${encodeURIComponent(record.call_id)}` : null;
  return (
    <Section
      title="Messages around the call"
      testId="call-context"
      actions={
        trajectoryHref && (
          <Link href={trajectoryHref} className="text-xs accent hover:underline">
            Open in trajectory →
          </Link>
        )
      }
    >
      {q.isPending && <p className="text-sm text-muted">Loading the call…</p>}
      {q.isError && (
        <p className="text-sm text-muted" role="status">
          {q.error instanceof ApiRequestError && q.error.status === 404 ? "The call was not stored (or was removed by retention)." : `Could not load the call: ${q.error.message}`}
        </p>
      )}
      {q.data && (
        <div className="flex flex-col gap-3">
          <Facts
            layout="wrap"
            minWidth="15rem"
            className="gap-x-4 gap-y-1 text-xs"
            items={[
                ["model", q.data.model ?? "—"],
                ["status", q.data.status_code === null ? "no response" : String(q.data.status_code)],
                ["duration", formatMs(callDurationMs(q.data))],
                ["started", formatTime(String(q.data.start_ns))],
                ["tokens", `${q.data.input_tokens ?? "—"} in · ${q.data.output_tokens ?? "—"} out${q.data.max_tokens ? ` · max ${q.data.max_tokens}` : ""}`],
                ["finish", q.data.finish_reasons.join(", ") || "—"],
                ["messages", `${q.data.input_messages.length} in · ${q.data.output_messages.length} out`],
                ...(q.data.recording_truncated ? ([["recording truncated", `${notRecordedSize(q.data.recording_truncated)} not recorded`]] as const) : []),
              ] as const}
          />
          <CallMessagesView call={q.data} tail={4} highlightToolCallId={toolCallId} />
        </div>
      )}
    </Section>
  );
}
