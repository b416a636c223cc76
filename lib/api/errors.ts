// Errors as HTTP answers. Layers below lib/api throw lib/domain's DomainError; ApiError is for
// what only HTTP has (a body too large, a bearer header missing, a cross-origin write).
import { DomainError, hasBrand } from "../domain/errors";

const API_ERROR = Symbol.for("sightdesk.ApiError");

/** An error with an HTTP status whose message is safe to show to the client. */
export class ApiError extends Error {
  readonly [API_ERROR] = true;

  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }

  // e.g. an ingest worker reply's 400, made by whichever bundle started the worker
  static [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(value, API_ERROR);
  }
}

export const badRequest = (message: string) => new ApiError(400, message);

/** The status and safe message of an ApiError or DomainError; null for anything else (a 500). */
export function httpError(e: unknown): { status: number; message: string } | null {
  if (e instanceof ApiError) return { status: e.status, message: e.message };
  if (e instanceof DomainError) return { status: e.status, message: e.message };
  return null;
}
