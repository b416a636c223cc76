// The version a session cookie carries, compared with its user's on every request (users.ts ends
// sessions by moving the user's on).

/** The session version a session cookie carries (cookies from before versions count as 0). */
export function tokenSessionVersion(token: object | null | undefined): number {
  const sv = (token as { sv?: unknown } | null | undefined)?.sv;
  return typeof sv === "number" ? sv : 0;
}
