// Runs before every page request: tells the page which path and query were asked for, so that a
// page sending a signed-out visitor to /login can bring them back there (lib/auth/requireUser.ts).
// Pages cannot read their own URL otherwise. A value sent by the client is always replaced.
// A page path with a trailing slash is redirected to the path without it.
import { NextResponse, type NextRequest } from "next/server";
import { PATH_HEADER, requestedPath } from "./lib/auth/callbackPath";

export function proxy(request: NextRequest): NextResponse {
  // a page asked for with a trailing slash goes to its path without one (next.config.ts turns
  // Next's own redirect off, for the mounted proxy's sake)
  // (nextUrl writes the slash back, so the plain URL)
  const asked = new URL(request.url);
  if (asked.pathname.length > 1 && asked.pathname.endsWith("/")) {
    asked.pathname = asked.pathname.replace(/\/+$/, "") || "/";
    return NextResponse.redirect(asked, 308);
  }
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, requestedPath(request.nextUrl.pathname, request.nextUrl.search));
  return NextResponse.next({ request: { headers } });
}

// Pages only: not the API, the recording proxy (/proxy/*), Next's own files or static files.
export const config = { matcher: ["/((?!api/|proxy/|_next/|favicon\\.ico$).*)"] };
