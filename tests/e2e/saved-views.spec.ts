// Saved views (issue 15, part 3) in the browser: a responder saves the inbox's filters as a
// shared view, updates it after changing a filter; a viewer finds it in the view menu with its
// unresolved count, opens it, and opens its stable link (as a runbook would); the owner deletes it.
import { expect, test, type Page } from "@playwright/test";
import { inboxRows, inboxSettled, signIn, snapshot } from "./fixtures";

type Count = { total: number };

async function unresolved(page: Page, query: string): Promise<number> {
  const res = await page.request.get(`/api/interruptions/count?${query}`);
  expect(res.ok()).toBeTruthy();
  return ((await res.json()) as Count).total;
}

/** The id of the view just saved, once the URL names it (the name shows before the URL changes). */
async function openViewId(page: Page): Promise<string> {
  await expect(page).toHaveURL(/[?&]view=[\w-]+/);
  return new URL(page.url()).searchParams.get("view")!;
}

const menu = (page: Page) => page.getByRole("dialog", { name: "Saved views" });

async function openMenu(page: Page) {
  await page.getByTestId("view-menu-button").click();
  await expect(menu(page)).toBeVisible();
}

test("save the inbox's filters as a shared view, find it with its count, open it and its link", async ({ page, browser }) => {
  const name = `Critical now ${Date.now().toString(36)}`;
  await signIn(page, "responder");
  await page.goto("/inbox?severity=critical");
  await inboxSettled(page);
  const critical = await unresolved(page, "severity=critical&resolved=false");
  expect(critical).toBeGreaterThan(0);

  await openMenu(page);
  await menu(page).getByLabel("View name").fill(name);
  await menu(page).getByLabel("Share with the team").check();
  await menu(page).getByRole("button", { name: "Save view" }).click();
  // the saved view is the open one: named in the button, its id in the URL
  await expect(page.getByTestId("open-view-name")).toHaveText(name);
  const id = await openViewId(page);
  const item = menu(page).getByTestId("shared-views").locator(`[data-view-id="${id}"]`);
  await expect(item).toContainText(name);
  await expect(item.getByTestId("view-count")).toHaveText(String(critical));
  await expect(item.getByTestId("copy-view-link")).toHaveAttribute("data-url", `/inbox/views/${id}`);
  await snapshot(page, "saved-views-menu");
  await page.keyboard.press("Escape");

  // another filter: the open view is modified until it is updated (medium: background sweeps
  // add high-severity unsettled turns, never medium ones, so the counts hold still)
  await page.getByRole("group", { name: "Severity" }).getByRole("button", { name: "medium", exact: true }).click();
  await expect(page).toHaveURL(/severity=critical%2Cmedium|severity=critical,medium/);
  await expect(page.getByTestId("open-view-name")).toContainText("(modified)");
  await openMenu(page);
  await menu(page).getByTestId("update-view").click();
  await expect(page.getByTestId("open-view-name")).toHaveText(name);
  const both = await unresolved(page, "severity=critical,medium&resolved=false");
  await expect(menu(page).locator(`[data-view-id="${id}"]`).getByTestId("view-count")).toHaveText(String(both));
  await page.keyboard.press("Escape");

  // A viewer: the shared view is in the menu with its count; picking it opens the inbox filtered.
  const viewerContext = await browser.newContext();
  const viewer = await viewerContext.newPage();
  await signIn(viewer, "viewer");
  await viewer.goto("/inbox");
  await inboxSettled(viewer);
  await openMenu(viewer);
  const shared = menu(viewer).getByTestId("shared-views").locator(`[data-view-id="${id}"]`);
  await expect(shared.getByTestId("view-count")).toHaveText(String(both));
  await shared.getByRole("link").click();
  await expect(viewer).toHaveURL(new RegExp(`[?&]view=${id}`));
  await inboxSettled(viewer);
  const severity = viewer.getByRole("group", { name: "Severity" });
  await expect(severity.getByRole("button", { name: "critical", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(severity.getByRole("button", { name: "medium", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(severity.getByRole("button", { name: "high", exact: true })).toHaveAttribute("aria-pressed", "false");
  await expect(viewer.getByTestId("inbox-total")).toHaveText(`${both} unresolved`);
  // not theirs to change
  await openMenu(viewer);
  await expect(menu(viewer)).toContainText("only they or an admin can change it");
  await expect(menu(viewer).getByTestId("delete-view")).toHaveCount(0);
  await viewer.keyboard.press("Escape");

  // The stable link a runbook holds reopens the same view.
  await viewer.goto(`/inbox/views/${id}`);
  await expect(viewer).toHaveURL(new RegExp(`/inbox\\?.*view=${id}`));
  await inboxSettled(viewer);
  await expect(viewer.getByTestId("open-view-name")).toHaveText(name);
  await expect(viewer.getByTestId("inbox-total")).toHaveText(`${both} unresolved`);
  await viewerContext.close();

  // The owner deletes it (with a confirming second click); it leaves the menu.
  await openMenu(page);
  await menu(page).getByTestId("delete-view").click();
  await menu(page).getByRole("button", { name: `Delete “${name}”?` }).click();
  await expect(menu(page).locator(`[data-view-id="${id}"]`)).toHaveCount(0);
  await expect(page).not.toHaveURL(/[?&]view=/);
});

test("a private view stays in its owner's menu only", async ({ page, browser }) => {
  const name = `Mine ${Date.now().toString(36)}`;
  await signIn(page, "responder");
  await page.goto("/inbox?interruption_type=rate_limit");
  await inboxSettled(page);
  await openMenu(page);
  await menu(page).getByLabel("View name").fill(name);
  await menu(page).getByRole("button", { name: "Save view" }).click();
  await expect(page.getByTestId("open-view-name")).toHaveText(name);
  const id = await openViewId(page);
  await expect(menu(page).getByTestId("my-views").locator(`[data-view-id="${id}"]`)).toBeVisible();

  const otherContext = await browser.newContext();
  const other = await otherContext.newPage();
  await signIn(other, "viewer");
  await other.goto("/inbox");
  await openMenu(other);
  await expect(menu(other).getByTestId("my-views")).not.toContainText(name);
  await expect(menu(other).locator(`[data-view-id="${id}"]`)).toHaveCount(0);
  const link = await other.goto(`/inbox/views/${id}`);
  expect(link?.status()).toBe(404);
  await otherContext.close();
});

test("Escape with the view menu open closes the menu and keeps the rows selected", async ({ page }) => {
  await signIn(page, "responder");
  await page.goto("/inbox");
  await inboxSettled(page);
  const rows = inboxRows(page);
  await rows.nth(0).getByRole("checkbox").check();
  await rows.nth(1).getByRole("checkbox").check();
  await expect(page.getByTestId("bulk-selected")).toHaveText("2 selected");
  await openMenu(page);
  await page.keyboard.press("Escape");
  await expect(menu(page)).toBeHidden();
  // before, the inbox heard the same Escape and cleared the selection too
  await expect(page.getByTestId("bulk-selected")).toHaveText("2 selected");
  // a second Escape, with the menu closed, is the inbox's: it clears the selection
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("bulk-selected")).toHaveCount(0);
});
