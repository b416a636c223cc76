// Users and helpers shared by the browser tests; scripts/e2e-server.ts seeds the same users.
import { expect, type Page } from "@playwright/test";

export const USERS = {
  admin: { email: "admin@e2e.test", password: "admin-pass-123", role: "admin" },
  responder: { email: "responder@e2e.test", password: "responder-pass-123", role: "responder" },
  viewer: { email: "viewer@e2e.test", password: "viewer-pass-123", role: "viewer" },
} as const;

export type Who = keyof typeof USERS;

export async function signIn(page: Page, who: Who): Promise<void> {
  const user = USERS[who];
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
