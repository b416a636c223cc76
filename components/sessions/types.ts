// Helpers of the sessions list; the session summary of `GET /api/sessions` comes from the
// contracts (components/api/types.ts).

export type { OpenInterruptions, SessionSummary } from "@/components/api/types";

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
