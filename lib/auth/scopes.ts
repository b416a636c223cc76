// What a token or a role may do (SPEC §5.3).

/**
 * `forwarder`: register or re-point a host's forwarder (where dead-loop terminate requests go).
 * Separate from `ingest`, so a leaked ingest token cannot redirect terminate requests. `admin`
 * implies every scope.
 */
export const SCOPES = ["read", "triage", "ingest", "forwarder", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

export function parseScopes(text: string): Scope[] {
  return text.split(",").filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
}
