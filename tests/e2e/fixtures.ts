// Users and helpers shared by the browser tests; scripts/e2e-server.ts seeds the same users.
import fs from "node:fs";
import path from "node:path";
import { expect, request, test, type APIRequestContext, type Page } from "@playwright/test";

export const USERS = {
  admin: { email: "admin@e2e.test", password: "admin-pass-123", role: "admin" },
  responder: { email: "responder@e2e.test", password: "responder-pass-123", role: "responder" },
  viewer: { email: "viewer@e2e.test", password: "viewer-pass-123", role: "viewer" },
} as const;

export type Who = keyof typeof USERS;

const PORT = process.env.E2E_PORT ?? "3210";
export const BASE_URL = `http://127.0.0.1:${PORT}`;

/** The e2e server's API with its dashboard token (every scope, ingest included). */
export function dashboardApi(): Promise<APIRequestContext> {
  const token = fs.readFileSync(path.resolve(`.tmp/e2e-${PORT}/.dashboard_token`), "utf8").trim();
  return request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
}

/**
 * Signs in as the login form does (next-auth's credentials endpoint, with its CSRF token), so
 * the page's next navigation is signed in. No page is rendered on the way: the form itself and
 * where it leads are what `auth.spec.ts` tests, with `signInThroughForm`.
 */
export async function signIn(page: Page, who: Who): Promise<void> {
  const user = USERS[who];
  const csrf = await page.request.get("/api/auth/csrf");
  expect(csrf.status()).toBe(200);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await page.request.post("/api/auth/callback/credentials", {
    form: { email: user.email, password: user.password, csrfToken, callbackUrl: `${BASE_URL}/`, json: "true" },
    headers: { origin: BASE_URL },
  });
  expect(res.status()).toBe(200);
  // a refused CSRF token or password also answers 200 (with another url): ask who is signed in
  const session = (await (await page.request.get("/api/auth/session")).json()) as { user?: { email?: string } };
  expect(session.user?.email, `signed in as ${who}`).toBe(user.email);
}

/** Signs in as a person does: the login form, then the page it leads to. */
export async function signInThroughForm(page: Page, user: { email: string; password: string }): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByTestId("current-user")).toContainText(user.email);
}

/** A screenshot of the page under test-results/, for people to look at. */
export async function snapshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true });
}

/** The inbox's rows (the flat view's table). */
export const inboxRows = (page: Page) => page.locator('[data-testid="inbox-table"] tbody tr');

/** The count an inbox tab shows. */
export const tabCount = (page: Page, tab: string) => page.getByTestId(`tab-${tab}`).getByTestId("tab-count");

/** Waits until the inbox has answered: nothing busy, and its table, its groups or its empty state shown. */
export async function inboxSettled(page: Page): Promise<void> {
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
  await expect(page.getByTestId("inbox-table").or(page.getByTestId("group-table")).or(page.getByTestId("inbox-empty"))).toBeVisible();
}

let seq = 0;
/** A name unique to this run of the (one-worker) suite, and unlike an earlier run's. */
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

/** Uncaught page errors and hydration mismatches fail each test of the spec that calls this. */
export function failOnPageProblems(): void {
  const problems = new WeakMap<Page, string[]>();
  test.beforeEach(({ page }) => {
    const seen: string[] = [];
    problems.set(page, seen);
    page.on("pageerror", (e) => seen.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" && /hydrat|did not match/i.test(m.text())) seen.push(`console: ${m.text()}`);
    });
  });
  test.afterEach(({ page }) => {
    expect(problems.get(page) ?? []).toEqual([]);
  });
}

/**
 * Holds the first answer to `url`, read from the server now, until the returned function is
 * called: a slow first load, to test what the page does meanwhile.
 */
export async function holdFirstAnswer(page: Page, url: string | RegExp | ((url: URL) => boolean)): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(url, async (route) => {
    const response = await route.fetch();
    await released;
    await route.fulfill({ response });
  }, { times: 1 });
  return release;
}
