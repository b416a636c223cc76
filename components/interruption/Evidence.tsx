"use client";
import Link from "next/link";
import type { ReactNode } from "react";
import type { InterruptionRecord } from "@/components/api/types";
import { TextBlock } from "@/components/trajectory/TextBlock";
import { Facts } from "@/components/ui/Facts";
import { Section, SubHeading } from "@/components/ui/Section";
import {
  CRASH_REASONS,
  DEAD_LOOP_RULES,
  STATE_MACHINE_RULES,
  groupSignatures,
  num,
  parseDetail,
  percent,
  ratioOf,
  str,
  strList,
  type Detail,
} from "@/lib/trajectory/evidence";
import { formatMs } from "@/lib/trajectory/ns";
import { Meter } from "./Meter";

const ERROR_TYPES = new Set([
  "auth_error",
  "network_timeout",
  "service_unavailable",
  "context_overflow",
  "resource_exhaustion",
  "rate_limit",
  "llm_error",
  "safety_filter",
  "state_machine_error",
]);

/** Evidence keys rendered by the per-type views (the rest is listed under "Other fields"). */
const COMMON_ERROR_KEYS = ["status_code", "error_code", "message", "bricked_since_call_id"];

export function Evidence({ record }: { record: InterruptionRecord }) {
  const detail = parseDetail(record.detail);
  if (!detail) {
    return (
      <Section title="Evidence">
        <p className="text-xs text-muted">The evidence is not a JSON object; shown as sent:</p>
        <TextBlock text={record.detail || "(empty)"} testId="evidence-raw" />
      </Section>
    );
  }
  const { body, shown } = byType(record, detail);
  const rest = Object.keys(detail).filter((k) => !shown.includes(k));
  return (
    <Section title="Evidence" testId="evidence" data={{ "data-type": record.interruption_type }}>
      <div className="flex flex-col gap-4">{body}</div>
      {rest.length > 0 && (
        <div className="mt-4">
          <SubHeading>Other fields</SubHeading>
          <Facts items={rest.map((k) => [k, <Value key={k} v={detail[k]} />])} />
        </div>
      )}
      <details className="mt-4 text-xs">
        <summary className="cursor-pointer text-muted">Raw detail (JSON)</summary>
        <div className="mt-1 rounded bg-subtle p-2">
          <TextBlock text={JSON.stringify(detail, null, 2)} testId="evidence-json" />
        </div>
      </details>
    </Section>
  );
}

function byType(record: InterruptionRecord, d: Detail): { body: ReactNode; shown: string[] } {
  const type = record.interruption_type;
  switch (type) {
    case "token_limit":
      return { body: <TokenLimit d={d} />, shown: ["model", "output_tokens", "max_tokens", "ratio"] };
    case "slow_response":
      return { body: <SlowResponse d={d} />, shown: ["duration_ms", "threshold_ms", "model"] };
    case "dead_loop":
      return {
        body: <DeadLoop d={d} />,
        shown: ["rule", "repeat_count", "repeated_tools", "similarity", "input_tokens_start", "input_tokens_end", "output_snippet"],
      };
    case "retry_storm":
      return { body: <RetryStorm d={d} />, shown: ["repeated_type", "count"] };
    case "agent_crash":
      return { body: <Crash d={d} />, shown: ["pid", "exit_code", "signal", "oom", "reason", "host"] };
    case "tool_failure":
    case "unauthorized_action":
      return { body: <ToolResult d={d} record={record} />, shown: ["reason", "snippet", "tool_call_id", "tool_name"] };
    case "sse_truncated":
    case "empty_response":
      return {
        body: (
          <Facts
            items={[
              ["status", str(d.status_code) ?? "—"],
              ["duration", d.duration_ms !== undefined ? formatMs(num(d.duration_ms)) : "—"],
              ["finish reasons", strList(d.finish_reasons).join(", ") || "none (the stream never finished)"],
              ["model", str(d.model) ?? "—"],
            ]}
          />
        ),
        shown: ["status_code", "duration_ms", "finish_reasons", "model"],
      };
    default:
      if (ERROR_TYPES.has(type)) {
        const shown = [...COMMON_ERROR_KEYS, "rule", "dangling", "orphan", "duplicate", "input_tokens", "max_tokens", "model", "finish_reasons"];
        return { body: <ErrorEvidence d={d} record={record} />, shown };
      }
      return { body: null, shown: [] };
  }
}

function TokenLimit({ d }: { d: Detail }) {
  const out = num(d.output_tokens);
  const max = num(d.max_tokens);
  const ratio = num(d.ratio) ?? ratioOf(out, max);
  return (
    <>
      <p className="text-sm">
        The model stopped because it hit its output limit: <b className="tabular-nums">{out ?? "—"}</b> of <b className="tabular-nums">{max ?? "—"}</b> max tokens
        {str(d.model) && (
          <>
            {" "}
            on <span className="font-mono">{str(d.model)}</span>
          </>
        )}
        . The answer is probably cut off.
      </p>
      {ratio !== null && (
        <Meter
          testId="token-ratio"
          value={ratio}
          scaleMax={1}
          threshold={0.95}
          thresholdLabel="fires at 95%"
          label={`ratio ${ratio.toFixed(3)} · ${percent(ratio)} of max_tokens`}
          tone="warn"
        />
      )}
    </>
  );
}

function SlowResponse({ d }: { d: Detail }) {
  const ms = num(d.duration_ms);
  const threshold = num(d.threshold_ms);
  const scale = Math.max(ms ?? 0, threshold ?? 0) * 1.1 || 1;
  return (
    <>
      <p className="text-sm">
        A successful call took <b className="tabular-nums">{formatMs(ms)}</b>
        {threshold !== null && (
          <>
            {" "}
            — the threshold is <b className="tabular-nums">{formatMs(threshold)}</b>
            {ms !== null && threshold > 0 && <> ({(ms / threshold).toFixed(1)}× over)</>}
          </>
        )}
        {str(d.model) && (
          <>
            {" "}
            on <span className="font-mono">{str(d.model)}</span>
          </>
        )}
        .
      </p>
      {ms !== null && (
        <Meter
          testId="duration-bar"
          value={ms}
          scaleMax={scale}
          threshold={threshold ?? undefined}
          thresholdLabel={threshold !== null ? `threshold ${formatMs(threshold)}` : undefined}
          label={`duration ${formatMs(ms)}`}
          tone="warn"
        />
      )}
    </>
  );
}

function DeadLoop({ d }: { d: Detail }) {
  const rule = str(d.rule) ?? "unknown";
  const tools = strList(d.repeated_tools);
  const similarity = num(d.similarity);
  const start = num(d.input_tokens_start);
  const end = num(d.input_tokens_end);
  return (
    <>
      <div>
        <div className="flex flex-wrap items-baseline gap-2">
          <span className="rounded bg-subtle px-1.5 py-0.5 font-mono text-xs" data-testid="dead-loop-rule">
            {rule}
          </span>
          <span className="text-sm">
            repeated <b className="tabular-nums">{str(d.repeat_count) ?? "—"}</b> times
          </span>
        </div>
        <p className="mt-1 text-sm text-muted">{DEAD_LOOP_RULES[rule] ?? "A dead-loop rule fired."}</p>
      </div>
      {tools.length > 0 && (
        <div>
          <SubHeading>Repeated tool signature</SubHeading>
          <ol className="flex flex-col gap-1" data-testid="repeated-tools">
            {groupSignatures(tools).map((g, i) => (
              <li key={i} className="flex flex-wrap items-center gap-2 rounded border border-default px-2 py-1 text-xs">
                <span className="text-muted tabular-nums">{i + 1}.</span>
                <span className="font-mono font-semibold" data-testid="repeated-tool-name">
                  {g.name}
                </span>
                {g.fingerprint && (
                  <span className="font-mono text-muted" title="fingerprint of the canonical arguments">
                    args #{g.fingerprint}
                  </span>
                )}
                {g.count > 1 && <span className="text-muted">× {g.count}</span>}
              </li>
            ))}
          </ol>
          <p className="mt-1 text-xs text-muted">Each of the last calls that used tools made exactly this sequence (same tools, same arguments).</p>
        </div>
      )}
      {similarity !== null && (
        <Meter testId="similarity-bar" value={similarity} scaleMax={1} threshold={0.85} thresholdLabel="fires above 0.85" label={`output similarity ${similarity.toFixed(3)}`} tone="danger" />
      )}
      {start !== null && end !== null && (
        <p className="text-sm">
          Input tokens grew from <b className="tabular-nums">{start.toLocaleString()}</b> to <b className="tabular-nums">{end.toLocaleString()}</b>
          {start > 0 && <> (+{percent((end - start) / start, 0)})</>} while the output stayed the same.
        </p>
      )}
      {str(d.output_snippet) && (
        <div>
          <SubHeading>Repeated output</SubHeading>
          <div className="rounded bg-subtle p-2">
            <TextBlock text={str(d.output_snippet)!} variant="prose" testId="output-snippet" />
          </div>
        </div>
      )}
    </>
  );
}

function RetryStorm({ d }: { d: Detail }) {
  return (
    <p className="text-sm">
      <b className="tabular-nums">{str(d.count) ?? "—"}</b> calls in this conversation failed with the same type{" "}
      <span className="rounded bg-subtle px-1.5 py-0.5 font-mono text-xs">{str(d.repeated_type) ?? "—"}</span>: the agent keeps retrying
      something that keeps failing.
    </p>
  );
}

function Crash({ d }: { d: Detail }) {
  const oom = d.oom === true;
  const reason = str(d.reason);
  return (
    <>
      <p className="text-sm">
        The agent process {reason ? CRASH_REASONS[reason] ?? reason : "exited abnormally"} while its session was active.
      </p>
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4" data-testid="crash-facts">
        <BigFact label="exit code" value={d.exit_code === null || d.exit_code === undefined ? "—" : String(d.exit_code)} danger={num(d.exit_code) !== null && num(d.exit_code) !== 0} />
        <BigFact label="signal" value={str(d.signal) ?? "—"} danger={!!str(d.signal)} />
        <BigFact label="OOM" value={oom ? "yes — out of memory" : "no"} danger={oom} testId="crash-oom" />
        <BigFact label="pid" value={str(d.pid) ?? "—"} />
      </div>
      {(str(d.host) || reason) && (
        <Facts
          items={[
            ["reason", reason ?? "—"],
            ["host", str(d.host) ?? "—"],
          ]}
        />
      )}
    </>
  );
}

function ToolResult({ d, record }: { d: Detail; record: InterruptionRecord }) {
  return (
    <>
      <p className="text-sm [overflow-wrap:anywhere]">
        The tool <span className="font-mono font-semibold">{str(d.tool_name) ?? "?"}</span>{" "}
        {record.interruption_type === "unauthorized_action" ? "was denied by permissions or a sandbox" : "reported a failure"}
        {str(d.reason) && (
          <>
            : <span className="rounded bg-subtle px-1.5 py-0.5 font-mono text-xs">{str(d.reason)}</span>
          </>
        )}
        .
      </p>
      <Facts items={[["tool call id", <span key="id" className="font-mono">{str(d.tool_call_id) ?? "—"}</span>]]} />
      {str(d.snippet) && (
        <div className="rounded border border-red-600/40 bg-red-500/5 p-2">
          <TextBlock text={str(d.snippet)!} tone="error" testId="tool-snippet" />
        </div>
      )}
    </>
  );
}

function ErrorEvidence({ d, record }: { d: Detail; record: InterruptionRecord }) {
  const rule = str(d.rule);
  const dangling = strList(d.dangling);
  const orphan = strList(d.orphan);
  const duplicate = strList(d.duplicate);
  const bricked = str(d.bricked_since_call_id);
  const inputTokens = num(d.input_tokens);
  const maxTokens = num(d.max_tokens);
  const items: [string, ReactNode][] = [];
  if (d.status_code !== undefined) items.push(["HTTP status", str(d.status_code) ?? "no response"]);
  if (d.error_code !== undefined) items.push(["error code", str(d.error_code) ?? "—"]);
  if (d.finish_reasons !== undefined) items.push(["finish reasons", strList(d.finish_reasons).join(", ") || "—"]);
  if (d.model !== undefined) items.push(["model", str(d.model) ?? "—"]);
  return (
    <>
      {rule && (
        <div>
          <span className="rounded bg-subtle px-1.5 py-0.5 font-mono text-xs" data-testid="evidence-rule">
            {rule}
          </span>
          {STATE_MACHINE_RULES[rule] && <p className="mt-1 text-sm text-muted">{STATE_MACHINE_RULES[rule]}</p>}
        </div>
      )}
      {items.length > 0 && <Facts items={items} />}
      {rule === "length_with_large_input" && inputTokens !== null && maxTokens !== null && (
        <Meter
          value={inputTokens}
          scaleMax={Math.max(inputTokens, 4 * maxTokens) * 1.1}
          threshold={4 * maxTokens}
          thresholdLabel={`4 × max_tokens = ${(4 * maxTokens).toLocaleString()}`}
          label={`input ${inputTokens.toLocaleString()} tokens`}
          tone="danger"
        />
      )}
      {(dangling.length > 0 || orphan.length > 0 || duplicate.length > 0) && (
        <div className="flex flex-col gap-2" data-testid="tool-balance-ids">
          <IdList label="Dangling tool calls (no response)" ids={dangling} testId="dangling-ids" />
          <IdList label="Orphan responses (no earlier call)" ids={orphan} testId="orphan-ids" />
          <IdList label="Duplicate tool call ids" ids={duplicate} testId="duplicate-ids" />
        </div>
      )}
      {bricked && (
        <p className="rounded border border-red-600/50 bg-red-500/5 px-2 py-1.5 text-sm" data-testid="bricked-since">
          This conversation is <b>bricked</b>: its history broke tool-call pairing at call{" "}
          {record.session_id ? (
            <Link className="font-mono accent hover:underline" href={`/sessions/${encodeURIComponent(record.session_id)}?call=${encodeURIComponent(bricked)}`}>
              {bricked}
            </Link>
          ) : (
            <span className="font-mono">{bricked}</span>
          )}
          , and the provider rejects every later request carrying it. Fix the history there (cut at a safe point), not here.
        </p>
      )}
      {str(d.message) && (
        <div>
          <SubHeading>Error message</SubHeading>
          <div className="rounded border border-red-600/40 bg-red-500/5 p-2">
            <TextBlock text={str(d.message)!} tone="error" testId="evidence-message" />
          </div>
        </div>
      )}
    </>
  );
}

function IdList({ label, ids, testId }: { label: string; ids: string[]; testId: string }) {
  if (!ids.length) return null;
  return (
    <div>
      <div className="mb-1 text-xs text-muted">{label}</div>
      <ul className="flex flex-wrap gap-1.5" data-testid={testId}>
        {ids.map((id) => (
          <li key={id} className="break-all rounded border border-red-600/60 px-1.5 py-0.5 font-mono text-xs text-red-700 dark:text-red-400">
            {id}
          </li>
        ))}
      </ul>
    </div>
  );
}

function BigFact({ label, value, danger = false, testId }: { label: string; value: string; danger?: boolean; testId?: string }) {
  return (
    <div className={`rounded-md border px-3 py-2 ${danger ? "border-red-600/60 bg-red-500/5" : "border-default"}`} data-testid={testId}>
      <div className="text-[11px] uppercase tracking-wide text-muted">{label}</div>
      <div className={`text-base font-semibold tabular-nums ${danger ? "text-red-700 dark:text-red-400" : ""}`}>{value}</div>
    </div>
  );
}

function Value({ v }: { v: unknown }) {
  if (v === null || v === undefined) return <span className="text-muted">—</span>;
  if (typeof v === "string" && v.length < 200 && !v.includes("\n")) return <span className="break-words">{v}</span>;
  if (typeof v === "number" || typeof v === "boolean") return <span className="tabular-nums">{String(v)}</span>;
  return <TextBlock text={typeof v === "string" ? v : JSON.stringify(v, null, 2)} max={1500} />;
}
