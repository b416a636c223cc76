// An OTLP trace export → prepared ingest items (the same validation and preparation as
// /api/ingest/calls and /api/ingest/events). A GenAI span whose item fails validation is
// rejected alone (OTLP's partial success), not the whole export; non-GenAI spans are ignored.
import { prepareCall, type Prepared } from "../ingest/prepare";
import { callSchema, eventSchema, type LifecycleEvent } from "../ingest/schema";
import { prepareEvent, type PreparedEvent } from "../ingest/storeEvents";
import type { NormalizedCall } from "../domain/calls";
import { withJsonBudget } from "./messages";
import type { OtlpSpan, OtlpTraceRequest } from "./model";
import { genAiCall, openInferenceCall, spanRole, toolResultEvent, type SpanContext } from "./spans";

/** An export's calls and tool-result events, each read by the given functions. */
export type OtlpItems<C, E> = {
  calls: C[];
  events: E[];
  /** GenAI spans that could not be used, and why (the first few) */
  rejected: number;
  reasons: string[];
  /** spans that are not GenAI spans (ignored) */
  ignored: number;
};
export type OtlpBatch = OtlpItems<Prepared, PreparedEvent>;

const MAX_REASONS = 5;
const validIds = (s: OtlpSpan) => /^[0-9a-f]{32}$/.test(s.traceId) && /^[0-9a-f]{16}$/.test(s.spanId) && s.traceId !== "0".repeat(32) && s.spanId !== "0".repeat(16);

function issue(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const first = error.issues[0];
  return first ? `${first.path.map(String).join(".") || "span"}: ${first.message}` : "invalid";
}

/** The items of one export, each span mapped and validated on its own, then read by `readCall` / `readEvent`. */
export function readOtlp<C, E>(request: OtlpTraceRequest, readCall: (call: NormalizedCall) => C, readEvent: (event: LifecycleEvent) => E): OtlpItems<C, E> {
  return withJsonBudget(() => readSpans(request, readCall, readEvent));
}

function readSpans<C, E>(request: OtlpTraceRequest, readCall: (call: NormalizedCall) => C, readEvent: (event: LifecycleEvent) => E): OtlpItems<C, E> {
  const batch: OtlpItems<C, E> = { calls: [], events: [], rejected: 0, reasons: [], ignored: 0 };
  const byId = new Map<string, OtlpSpan>();
  for (const rs of request.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) if (s.spanId) byId.set(s.spanId, s);
  const seen = new Set<string>();
  const reject = (s: OtlpSpan, why: string) => {
    batch.rejected++;
    if (batch.reasons.length < MAX_REASONS) batch.reasons.push(`span ${s.spanId || "(no id)"}: ${why}`);
  };
  for (const rs of request.resourceSpans) {
    const ctx: SpanContext = { resource: rs.resource, byId };
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans) {
        const role = spanRole(s);
        if (!role) {
          batch.ignored++;
          continue;
        }
        if (!validIds(s)) {
          reject(s, "invalid trace or span id");
          continue;
        }
        if (s.startNs === 0n) {
          reject(s, "no start time");
          continue;
        }
        if (seen.has(s.traceId + s.spanId)) continue; // the same span twice in one export
        seen.add(s.traceId + s.spanId);
        try {
          if (role === "tool") {
            const parsed = eventSchema.safeParse(toolResultEvent(s, ctx));
            if (parsed.success) batch.events.push(readEvent(parsed.data));
            else reject(s, issue(parsed.error));
          } else {
            const parsed = callSchema.safeParse(role === "call" ? genAiCall(s, ctx) : openInferenceCall(s, ctx));
            if (parsed.success) batch.calls.push(readCall(parsed.data));
            else reject(s, issue(parsed.error));
          }
        } catch (e) {
          reject(s, (e as Error).message);
        }
      }
    }
  }
  return batch;
}

export const prepareOtlp = (request: OtlpTraceRequest): OtlpBatch => readOtlp(request, prepareCall, prepareEvent);

/** partial_success.error_message for a batch with rejected spans ("" when none). */
export function rejectionMessage(batch: Pick<OtlpBatch, "rejected" | "reasons">): string {
  if (!batch.rejected) return "";
  const more = batch.rejected > batch.reasons.length ? `; and ${batch.rejected - batch.reasons.length} more` : "";
  return `${batch.rejected} GenAI span(s) could not be used: ${batch.reasons.join("; ")}${more}`;
}
