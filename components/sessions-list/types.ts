// The session summary of `GET /api/sessions` as the browser sees it (`*_ns` as digit strings).
import type { Ns, TypeCount } from "@/components/api/types";

export type OpenInterruptions = {
  total: number;
  by_severity: Record<string, number>;
  types: TypeCount[];
};

export type SessionSummary = {
  session_id: string;
  agent_name: string | null;
  pid: number | null;
  host: string | null;
  process_name: string | null;
  first_seen_ns: Ns;
  last_seen_ns: Ns;
  call_count: number;
  conversation_count: number;
  input_tokens: number;
  output_tokens: number;
  model: string | null;
  exited_at_ns: Ns | null;
  exit_code: number | null;
  exit_signal: string | null;
  oom: boolean | null;
  open_interruptions: OpenInterruptions;
};

/** The cursor of a `Link: <…?cursor=…>; rel="next"` header, or null on the last page. */
export function nextCursor(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(",")) {
    const m = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return new URL(m[1], "http://x").searchParams.get("cursor");
  }
  return null;
}

/** The trajectory page of a session. */
export const sessionHref = (id: string) => `/sessions/${encodeURIComponent(id)}`;
