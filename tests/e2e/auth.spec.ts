import { expect, test } from "@playwright/test";
import { BASE_URL, signInThroughForm, snapshot, USERS } from "./fixtures";

test("a wrong password is refused with a message", async ({ page }) => {
  await page.goto("/login");
  await page.getByLabel("Email").fill(USERS.admin.email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByTestId("login-error")).toHaveText("Wrong email or password.");
  await expect(page).toHaveURL(/\/login/);
  await snapshot(page, "login-error");
});

test("pages need a signed-in user", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/login/);
});

test("signing in from a page's redirect leads back to that page, filters and all", async ({ page }) => {
  await page.goto("/inbox?severity=high");
  await expect(page).toHaveURL(/\/login\?callbackUrl=%2Finbox%3Fseverity%3Dhigh$/);
  await page.getByLabel("Email").fill(USERS.viewer.email);
  await page.getByLabel("Password").fill(USERS.viewer.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByTestId("current-user")).toContainText(USERS.viewer.email);
  await expect(page).toHaveURL(/\/inbox\?severity=high$/);
  // signed in already: /login sends straight on; a callbackUrl to another site is ignored
  await page.goto("/login?callbackUrl=%2Fsessions");
  await expect(page).toHaveURL(/\/sessions$/);
  await page.goto("/login?callbackUrl=https%3A%2F%2Fevil.example%2F");
  await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/$/);
});

test("sign in, see who I am, sign out", async ({ page, browser }) => {
  await signInThroughForm(page, USERS.responder);
  await expect(page.getByTestId("current-user")).toContainText("responder");
  await snapshot(page, "overview-signed-in");
  // a copy of the session cookie, as another device or someone who copied it holds it: it works
  const other = await browser.newContext({ baseURL: BASE_URL });
  try {
    await other.addCookies(await page.context().cookies());
    const elsewhere = await other.newPage();
    expect((await elsewhere.request.get("/api/interruptions?limit=1")).status()).toBe(200);
    const sessionOf = async () => ((await (await elsewhere.request.get("/api/auth/session")).json()) as { user?: { email?: string } }).user?.email ?? null;
    expect(await sessionOf()).toBe(USERS.responder.email);

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login/);
    await page.goto("/");
    await expect(page).toHaveURL(/\/login/);

    // signing out ended the copy too: the API refuses it, the pages ask for a sign-in
    await expect.poll(async () => (await elsewhere.request.get("/api/interruptions?limit=1")).status(), { timeout: 8_000 }).toBe(401);
    // and next-auth's own session route no longer names the user (it answers {} and clears the cookie)
    expect(await sessionOf()).toBeNull();
    expect((await other.cookies()).some((c) => c.name.includes("session-token"))).toBe(false);
    await elsewhere.goto("/");
    await expect(elsewhere).toHaveURL(/\/login/);
  } finally {
    await other.close();
  }
});

test("after 5 wrong passwords the form says when to try again", async ({ page }) => {
  await page.goto("/login");
  await page.getByLabel("Email").fill("locked-out@e2e.test");
  for (let i = 0; i < 5; i++) {
    await page.getByLabel("Password").fill(`wrong-password-${i}`);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByTestId("login-error")).toHaveText("Wrong email or password.");
    await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
  }
  await page.getByLabel("Password").fill("wrong-password-5");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByTestId("login-error")).toHaveText("Too many attempts, try again in 15 minutes.");
  await expect(page).toHaveURL(/\/login/);
  await snapshot(page, "login-throttled");
});
