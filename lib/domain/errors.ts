// Errors of the domain, thrown by any layer. Each kind has one status (STATUS_OF_KIND), which
// lib/api/errors.ts answers with over HTTP (the route factory, the ingest worker); the CLI reads
// the kind. Messages are safe to show to the caller and name the field at fault where there is one.

export type DomainErrorKind = "invalid" | "unauthenticated" | "forbidden" | "not_found" | "conflict" | "too_large" | "too_many";

/** The HTTP status of each kind: decided here once, applied by lib/api/errors.ts. */
export const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  invalid: 400, unauthenticated: 401, forbidden: 403, not_found: 404, conflict: 409, too_large: 413, too_many: 429,
};

/**
 * Whether `value` carries `brand` (a `Symbol.for` key its class sets on every instance). Next.js
 * loads a module once per bundle (the instrumentation hook, the routes), so an error made by one
 * copy of a class fails `instanceof` against another copy; an error class whose
 * `Symbol.hasInstance` asks for its brand is one class to every copy.
 */
export const hasBrand = (value: unknown, brand: symbol): boolean => typeof value === "object" && value !== null && brand in value;

const DOMAIN_ERROR = Symbol.for("sightdesk.DomainError");

export class DomainError extends Error {
  readonly status: number;
  readonly [DOMAIN_ERROR] = true;

  static [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(value, DOMAIN_ERROR);
  }

  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.status = STATUS_OF_KIND[kind];
  }
}

/** Bad input: the message names the field (a 400 over HTTP). */
export const invalid = (message: string) => new DomainError("invalid", message);
export const unauthenticated = (message: string) => new DomainError("unauthenticated", message);
export const forbidden = (message: string) => new DomainError("forbidden", message);
export const notFound = (message: string) => new DomainError("not_found", message);
/** The state does not allow it (e.g. acknowledging a resolved interruption). */
export const conflict = (message: string) => new DomainError("conflict", message);
export const tooLarge = (message: string) => new DomainError("too_large", message);
export const tooMany = (message: string) => new DomainError("too_many", message);
