// The check every page of the signed-in app makes itself (issue 11). The layout's check is not
// enough: layouts are not re-rendered on client navigation, and a page (its RSC payload) can be
// requested on its own — Next renders a page even when its layout redirects. So each page under
// app/(app) calls requireUser() first (tests/unit/pageAuth.test.ts fails when one does not).
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { loginUrl, PATH_HEADER } from "./callbackPath";
import { currentUser, type CurrentUser } from "./currentUser";

/**
 * The signed-in user (a valid session cookie whose user exists and whose session version still
 * holds); otherwise a redirect to /login with a callbackUrl back to the requested page.
 */
export async function requireUser(): Promise<CurrentUser> {
  const user = await currentUser();
  if (user) return user;
  redirect(loginUrl((await headers()).get(PATH_HEADER)));
}
