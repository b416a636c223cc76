// Errors of the domain, thrown by any layer and mapped to HTTP statuses in lib/api/errors.ts
// (the route factory and the ingest worker); the CLI reads them by kind. Messages
// are safe to show to the caller and name the field at fault where there is one.

export type DomainErrorKind = "invalid" | "unauthenticated" | "forbidden" | "not_found" | "conflict" | "too_large" | "too_many";

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
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
