// API token secrets: random, shown once, stored only as their hash.
import crypto from "node:crypto";

/** A new secret: 32 random bytes as hex. */
export function newSecret(): string {
  return crypto.randomBytes(32).toString("hex");
}

/** Tokens are stored as their SHA-256; the secret itself is never stored or logged. */
export function hashToken(secret: string): string {
  return crypto.createHash("sha256").update(secret, "utf8").digest("hex");
}
