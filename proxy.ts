// Runs before every page request: tells the page which path and query were asked for, so that a
// page sending a signed-out visitor to /login can bring them back there (lib/auth/requireUser.ts).
// Pages cannot read their own URL otherwise. A value sent by the client is always replaced.
import { NextResponse, type NextRequest } from "next/server";
import { PATH_HEADER, requestedPath } from "./lib/auth/callbackPath";

export function proxy(request: NextRequest): NextResponse {
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, requestedPath(request.nextUrl.pathname, request.nextUrl.search));
  return NextResponse.next({ request: { headers } });
}

// Pages only: not the API, the recording proxy (/proxy/*), Next's own files or static files.
export const config = { matcher: ["/((?!api/|proxy/|_next/|favicon\\.ico$).*)"] };
