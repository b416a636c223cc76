import crypto from "node:crypto";

/**
 * `forwarder`: register or re-point a host's forwarder (where dead-loop terminate requests go).
 * Separate from `ingest`, so a leaked ingest token cannot redirect terminate requests. `admin`
 * implies every scope.
 */
export const SCOPES = ["read", "triage", "ingest", "forwarder", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

/** A new secret: 32 random bytes as hex. */
export function newSecret(): string {
  return crypto.randomBytes(32).toString("hex");
}

/** Tokens are stored as their SHA-256; the secret itself is never stored or logged. */
export function hashToken(secret: string): string {
  return crypto.createHash("sha256").update(secret, "utf8").digest("hex");
}

export function parseScopes(text: string): Scope[] {
  return text.split(",").filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
}
