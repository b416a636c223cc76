// A generated AgentSight interruption store (interruption_events.db with AgentSight's own DDL),
// shaped like a busy week of AgentSight: `rows` interruptions over 7 days, short sessions (an
// agent process lives about an hour) with 1.4 interruptions each on average, provider errors
// most frequent, and the older an interruption the likelier it is resolved (≈ 40 % of the last
// day's still open). Seeded: the same arguments give the same file.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { DEFAULT_SEVERITY, INTERRUPTION_TYPES, type InterruptionType } from "../lib/domain/interruptions";
import { INTERRUPTION_DDL } from "../tests/fixtures/agentsight";
import { prng } from "../tests/support/prng";

export const AGENTS = ["CoshNG", "research-bot", "support-agent", "explorer", "planner", "reviewer", "deployer", "triager", "indexer", "scribe"];
// Provider errors dominate real inboxes; crashes and loops are rare.
const TYPE_WEIGHTS: Partial<Record<InterruptionType, number>> = {
  rate_limit: 30, tool_failure: 15, llm_error: 8, service_unavailable: 8, network_timeout: 6, token_limit: 6, empty_response: 5, sse_truncated: 4, slow_response: 4,
};
const DETAIL: Partial<Record<InterruptionType, object>> = {
  rate_limit: { status_code: 429, error: "Rate limit reached for requests", model: "qwen-plus" },
  token_limit: { model: "qwen-plus", output_tokens: 4096, max_tokens: 4096, ratio: 1 },
  slow_response: { duration_ms: 131_000, threshold_ms: 120_000 },
  agent_crash: { pid: 31337, exit_code: 137, signal: "SIGKILL", oom: true },
};

const DAY_NS = 86_400_000_000_000n;
const HOUR_MS = 3_600_000;


const hex = (rand: () => number, n: number) => {
  let s = "";
  while (s.length < n) s += Math.floor(rand() * 0x100000000).toString(16).padStart(8, "0");
  return s.slice(0, n);
};
const uuid = (rand: () => number) => {
  const h = hex(rand, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20)}`;
};

export type StoreOptions = { rows: number; nowNs: bigint; days?: number; seed?: number };

/** Writes `dir/interruption_events.db` (replacing one there) and returns its path. */
export function writeAgentSightStore(dir: string, o: StoreOptions): string {
  const days = o.days ?? 7;
  const file = path.join(dir, "interruption_events.db");
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  db.pragma("cache_size = -262144"); // the random interruption ids' index stays in memory
  for (const s of INTERRUPTION_DDL) db.exec(s);
  const insert = db.prepare(
    `INSERT INTO interruption_events (interruption_id, session_id, trace_id, conversation_id, call_id, pid, agent_name,
       interruption_type, severity, occurred_at_ns, detail, resolved) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const rand = prng(o.seed ?? 7);
  const weighted = INTERRUPTION_TYPES.flatMap((t) => Array(TYPE_WEIGHTS[t] ?? 1).fill(t) as InterruptionType[]);
  const spanMs = days * 24 * HOUR_MS;
  // 0.7 sessions per interruption: ≈ 1.4 interruptions per session, as AgentSight's stores show
  const sessions = Math.max(1, Math.round(o.rows * 0.7));
  // Sessions in time order, so interruptions arrive (and get AgentSight ids) roughly in time order.
  const starts = Array.from({ length: sessions }, () => Math.floor(rand() * spanMs)).sort((a, b) => a - b);
  const ids = starts.map(() => uuid(rand));
  const perSession = new Float64Array(sessions);
  for (let i = 0; i < o.rows; i++) perSession[Math.floor(rand() * sessions)]++;
  const startNs = o.nowNs - BigInt(days) * DAY_NS;
  db.transaction(() => {
    for (let s = 0; s < sessions; s++) {
      const agent = AGENTS[s % AGENTS.length];
      const pid = 1000 + (s % 60_000);
      const conversation = hex(rand, 32);
      for (let k = 0; k < perSession[s]; k++) {
        const atMs = Math.min(spanMs - 1, starts[s] + Math.floor(rand() * HOUR_MS));
        const at = startNs + BigInt(atMs) * 1_000_000n;
        const ageDays = (spanMs - atMs) / (24 * HOUR_MS);
        const type = weighted[Math.floor(rand() * weighted.length)];
        const callId = `call-${hex(rand, 16)}`;
        const resolved = rand() < Math.min(0.97, 0.55 + 0.1 * ageDays) ? 1 : 0;
        insert.run(
          hex(rand, 32), ids[s], `chatcmpl-${callId}`, conversation, callId, pid, agent, type, DEFAULT_SEVERITY[type], at,
          JSON.stringify(DETAIL[type] ?? { status_code: 503, error: "upstream service unavailable" }), resolved,
        );
      }
    }
  })();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.exec("ANALYZE");
  db.close();
  return file;
}
