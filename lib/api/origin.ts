import { ApiError } from "./errors";

/**
 * Same-origin check for state-changing requests (CSRF). Bearer-token clients send no Origin
 * and are unaffected; a browser always sends Origin on cross-site POSTs, and it must match.
 */
export function checkSameOrigin(req: Request): void {
  const origin = req.headers.get("origin");
  if (!origin) return;
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new ApiError(403, "Cross-origin request refused");
  }
  if (originHost !== host) throw new ApiError(403, "Cross-origin request refused");
}
