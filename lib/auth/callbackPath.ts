// Where sign-in leads back to. Pure functions and constants, shared by proxy.ts (which runs before
// every page), the pages' requireUser() and the login page.

/** Request header proxy.ts sets on page requests: the path and query the browser asked for. */
export const PATH_HEADER = "x-sightdesk-path";

/**
 * A path on this site to return to after sign-in, or "/": only a local path ("/…", not "//…",
 * no backslash or control characters, so never another origin), and never /login or the API.
 */
export function safeCallbackPath(value: unknown): string {
  if (typeof value !== "string" || value.length > 2048) return "/";
  if (!value.startsWith("/") || value.startsWith("//") || /[\\\u0000-\u001f\u007f]/.test(value)) return "/";
  let url: URL;
  try {
    url = new URL(value, "http://sightdesk.invalid");
  } catch {
    return "/";
  }
  // `/.//evil.com` normalizes to `//evil.com`, which a browser reads as another origin
  if (url.origin !== "http://sightdesk.invalid" || url.pathname.startsWith("//")) return "/";
  if (url.pathname === "/login" || url.pathname.startsWith("/login/") || url.pathname.startsWith("/api/")) return "/";
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The sign-in page, coming back to `path` (when it is a local one) afterwards. */
export function loginUrl(path: string | null | undefined): string {
  return `/login?callbackUrl=${encodeURIComponent(safeCallbackPath(path))}`;
}

/** The path and query of a page request, without Next's `_rsc` cache-busting parameter. */
export function requestedPath(pathname: string, search: string): string {
  const params = new URLSearchParams(search);
  params.delete("_rsc");
  const query = params.toString();
  return query ? `${pathname}?${query}` : pathname;
}
