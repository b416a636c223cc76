// The on-call team workflow in the inbox (issue 5): two users split interruptions with "assign to
// me", the triage tabs and their counts, acknowledge with a note, bulk assign, the server-side
// grouped view with group actions, and the regressed marker. Every test ingests its own failures
// (under an agent name of its own) so it neither depends on nor disturbs the seeded demo data.
import { expect, test, type Browser, type Page } from "@playwright/test";
import { BASE_URL, dashboardApi, holdFirstAnswer, inboxRows, inboxSettled, signIn, snapshot, tabCount, type Who, unique, USERS } from "./fixtures";

const groupRows = (page: Page) => page.locator('[data-testid="group-table"] tbody tr');
const assignees = (page: Page) => inboxRows(page).getByTestId("cell-assignee").allTextContents();
const sorted = (xs: string[]) => [...xs].sort();

/**
 * Failing calls (HTTP 503, so service_unavailable) ingested with the e2e server's dashboard token.
 * Each call opens its own conversation (its own first user message), so no retry storm forms.
 */
async function ingest503(agent: string, n: number, model = "e2e-model") {
  const api = await dashboardApi();
  const now = BigInt(Date.now()) * 1_000_000n;
  const session = `e2e-triage-${agent}`;
  const calls = Array.from({ length: n }, (_, i) => {
    const start = now - BigInt(n - i) * 1_000_000_000n;
    const id = unique(`${agent}-call-${i}`);
    return {
      call_id: id,
      session_id: session,
      agent_name: agent,
      model,
      start_ns: String(start),
      end_ns: String(start + 200_000_000n),
      status_code: 503,
      error: "Service Unavailable",
      input_messages: [{ role: "user", parts: [{ type: "text", content: `task ${id}` }] }],
      output_messages: [],
    };
  });
  const res = await api.post("/api/ingest/calls", { data: calls });
  expect(res.ok(), await res.text()).toBeTruthy();
  await api.dispose();
}

/** `n` failures of an agent of their own, and the responder's For review tab of them, loaded. */
async function responderReviewOf(page: Page, label: string, n: number): Promise<string> {
  const agent = unique(label);
  await ingest503(agent, n);
  await signIn(page, "responder");
  await page.goto(`/inbox?agent_name=${agent}&tab=review`);
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(n);
  return agent;
}

async function userPage(browser: Browser, who: Who): Promise<Page> {
  const context = await browser.newContext({ baseURL: BASE_URL });
  const page = await context.newPage();
  await signIn(page, who);
  return page;
}

test("a notice does not move the rows: a click right after an action lands on the row aimed at", async ({ page }) => {
  await responderReviewOf(page, "notice-bot", 3);
  const top = async () => (await inboxRows(page).nth(1).boundingBox())!.y;
  const before = await top();

  await page.keyboard.press("j");
  await page.keyboard.press("m");
  const notice = page.getByTestId("inbox-notice");
  await expect(notice).toContainText("Assigned service_unavailable");
  await expect(notice).toBeInViewport();
  expect(await top()).toBe(before);
  // The notice lets clicks through to what lies under it, but for its own close button.
  await expect(notice).toHaveCSS("pointer-events", "none");
  await notice.getByRole("button", { name: "Dismiss" }).click();
  await expect(notice).toHaveCount(0);
  expect(await top()).toBe(before);
});

test("two row actions in quick succession each finish: both rows change, neither stays disabled, both say so", async ({ page }) => {
  await responderReviewOf(page, "quick-bot", 3);
  // the first acknowledge's answer is held until the second was sent
  const release = await holdFirstAnswer(page, "**/api/interruptions/*/acknowledge");
  await page.keyboard.press("j");
  await page.keyboard.press("a");
  await page.keyboard.press("j");
  await page.keyboard.press("a");
  await expect(inboxRows(page).nth(1).getByTestId("cell-status")).toHaveText("acknowledged");
  release();
  for (const i of [0, 1]) {
    await expect(inboxRows(page).nth(i).getByTestId("cell-status")).toHaveText("acknowledged");
    await expect(inboxRows(page).nth(i).getByRole("button", { name: "Assign to me" })).toBeEnabled();
  }
  await expect(page.getByTestId("inbox-notice")).toContainText("Acknowledged service_unavailable");
});

test("keys pressed in an open filter menu stay in it: the focused row behind is not acknowledged", async ({ page }) => {
  await responderReviewOf(page, "menu-bot", 2);
  await page.keyboard.press("j");
  await expect(inboxRows(page).nth(0)).toBeFocused();
  await page.getByTestId("filter-type").getByRole("button").first().click();
  const menu = page.getByRole("group", { name: "Type" });
  await menu.getByRole("checkbox").first().focus();
  await page.keyboard.press("a");
  await page.keyboard.press("m");
  await page.keyboard.press("Escape");
  await expect(menu).toBeHidden();
  await expect(inboxRows(page).nth(0).getByTestId("cell-status")).toHaveText("open");
  await expect(inboxRows(page).nth(0).getByTestId("cell-assignee")).toHaveText("—");
});

test("two users split interruptions: assign to me by key and by row action, each sees who holds what", async ({ browser }) => {
  const agent = unique("split-bot");
  await ingest503(agent, 4);
  const responder = await userPage(browser, "responder");
  const admin = await userPage(browser, "admin");

  // The responder takes two from For review: one with the key, one with the row action.
  await responder.goto(`/inbox?agent_name=${agent}&tab=review`);
  await inboxSettled(responder);
  await expect(responder.getByTestId("tab-review")).toHaveAttribute("aria-current", "page");
  await expect(inboxRows(responder)).toHaveCount(4);
  await expect(tabCount(responder, "review")).toHaveText("4");
  await expect(tabCount(responder, "unresolved")).toHaveText("4");
  expect(await assignees(responder)).toEqual(["—", "—", "—", "—"]);
  const ids = await inboxRows(responder).evaluateAll((trs) => trs.map((t) => t.getAttribute("data-id")!));

  await responder.keyboard.press("j");
  await expect(inboxRows(responder).nth(0)).toBeFocused();
  await responder.keyboard.press("m");
  await expect(inboxRows(responder).nth(0).getByTestId("cell-assignee")).toHaveText("you");
  await expect(responder.getByTestId("inbox-notice")).toContainText("Assigned service_unavailable");
  await inboxRows(responder).nth(1).getByRole("button", { name: "Assign to me" }).click();
  await expect(inboxRows(responder).nth(1).getByTestId("cell-assignee")).toHaveText("you");
  await expect(inboxRows(responder).nth(1).getByRole("button", { name: "Unassign" })).toBeVisible();

  // The admin's For review leaves out the responder's two.
  await admin.goto(`/inbox?agent_name=${agent}&tab=review`);
  await inboxSettled(admin);
  await expect(tabCount(admin, "review")).toHaveText("2");
  await expect(inboxRows(admin)).toHaveCount(2);
  expect(await inboxRows(admin).evaluateAll((trs) => trs.map((t) => t.getAttribute("data-id")))).toEqual(ids.slice(2));
  await admin.keyboard.press("j");
  await admin.keyboard.press("m");
  await expect(inboxRows(admin).nth(0).getByTestId("cell-assignee")).toHaveText("you");
  await inboxRows(admin).nth(1).getByRole("button", { name: "Assign to me" }).click();
  await expect(inboxRows(admin).nth(1).getByTestId("cell-assignee")).toHaveText("you");
  // Still in the admin's review (they are the admin's own now).
  await expect(tabCount(admin, "review")).toHaveText("2");
  await snapshot(admin, "inbox-tabs");

  // Unresolved: each sees all four, their own as "you" and the other's by email.
  await admin.getByTestId("tab-unresolved").click();
  await expect(admin).toHaveURL(/[?&]tab=unresolved(&|$)/);
  await expect(admin).toHaveURL(/[?&]agent_name=/); // the other filters stay
  await inboxSettled(admin);
  await expect(inboxRows(admin)).toHaveCount(4);
  await expect.poll(async () => sorted(await assignees(admin))).toEqual(sorted(["you", "you", USERS.responder.email, USERS.responder.email]));

  await responder.goto(`/inbox?agent_name=${agent}&tab=unresolved`);
  await inboxSettled(responder);
  expect(await assignees(responder)).toEqual(["you", "you", USERS.admin.email, USERS.admin.email]);

  // The responder's For review: only their own two now.
  await responder.getByTestId("tab-review").click();
  await inboxSettled(responder);
  await expect(tabCount(responder, "review")).toHaveText("2");
  await expect(inboxRows(responder)).toHaveCount(2);
  expect(await assignees(responder)).toEqual(["you", "you"]);

  // "m" again unassigns (a toggle); the review count keeps it (unassigned), the admin's gains it.
  await responder.keyboard.press("j");
  await responder.keyboard.press("m");
  await expect(inboxRows(responder).nth(0).getByTestId("cell-assignee")).toHaveText("—");
  await admin.getByTestId("tab-review").click();
  await inboxSettled(admin);
  await expect(tabCount(admin, "review")).toHaveText("3");
  await expect(inboxRows(admin)).toHaveCount(3);

  // The activity log names who did it.
  const activity = await (await responder.request.get(`/api/interruptions/${ids[1]}/activity`)).json();
  expect(JSON.stringify(activity)).toContain(`user:${USERS.responder.email}`);
  expect(JSON.stringify(activity)).toContain("assign");

  await responder.context().close();
  await admin.context().close();
});

test("acknowledge with a note from the inbox, then the Acknowledged tab holds it", async ({ page }) => {
  const agent = unique("ack-bot");
  await ingest503(agent, 2);
  await signIn(page, "responder");
  await page.goto(`/inbox?agent_name=${agent}`);
  await inboxSettled(page);
  await expect(page.getByTestId("tab-unresolved")).toHaveAttribute("aria-current", "page");
  await expect(tabCount(page, "acknowledged")).toHaveText("0");

  const row = inboxRows(page).first();
  const id = await row.getAttribute("data-id");
  await row.getByRole("checkbox").check();
  await page.getByRole("button", { name: "Acknowledge selected" }).click();
  const dialog = page.getByRole("dialog", { name: "Acknowledge 1 interruption?" });
  await expect(dialog.getByTestId("bulk-dialog-summary")).toHaveText("This will acknowledge the 1 interruption you selected.");
  await dialog.getByLabel("Note for each (optional)").fill("Looking at the upstream status page.");
  await dialog.getByRole("button", { name: "Acknowledge 1", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page.locator(`tr[data-id="${id}"]`).getByTestId("cell-status")).toHaveText("acknowledged");
  await expect(tabCount(page, "acknowledged")).toHaveText("1");

  const activity = await (await page.request.get(`/api/interruptions/${id}/activity`)).json();
  expect(JSON.stringify(activity)).toContain("Looking at the upstream status page.");
  expect(JSON.stringify(activity)).toContain(`user:${USERS.responder.email}`);

  await page.getByTestId("tab-acknowledged").click();
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(1);
  await expect(inboxRows(page).first()).toHaveAttribute("data-id", id!);
  // The status chips show what the tab stands for.
  await expect(page.getByRole("group", { name: "Status" }).getByRole("button", { name: "acknowledged" })).toHaveAttribute("aria-pressed", "true");
});

test("bulk assign to me and unassign state N in the confirmation", async ({ page }) => {
  const agent = unique("bulk-bot");
  await ingest503(agent, 3);
  await signIn(page, "responder");
  await page.goto(`/inbox?agent_name=${agent}`);
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(3);

  await page.getByRole("checkbox", { name: "Select all shown" }).check();
  await expect(page.getByTestId("bulk-selected")).toHaveText("3 selected");
  await page.getByTestId("bulk-bar").getByRole("button", { name: "Assign to me" }).click();
  const dialog = page.getByRole("dialog", { name: "Assign 3 interruptions to you?" });
  await expect(dialog.getByTestId("bulk-dialog-summary")).toHaveText("This will assign the 3 interruptions you selected to you.");
  await dialog.getByRole("button", { name: "Assign 3", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: "Assigned to you: 3 interruptions." })).toBeVisible();
  await expect.poll(() => assignees(page)).toEqual(["you", "you", "you"]);

  // By filter: one ticked, widened to all matching, then unassigned.
  await inboxRows(page).first().getByRole("checkbox").check();
  await page.getByRole("button", { name: "Select all 3 matching" }).click();
  await page.getByTestId("bulk-bar").getByRole("button", { name: "Unassign" }).click();
  const un = page.getByRole("dialog", { name: "Unassign 3 interruptions?" });
  await expect(un.getByTestId("bulk-dialog-summary")).toContainText("all 3 interruptions");
  await un.getByRole("button", { name: "Unassign 3", exact: true }).click();
  await expect(un).toBeHidden();
  await expect.poll(() => assignees(page)).toEqual(["—", "—", "—"]);
});

test("resolve all matching acts on the filter it counted, though the view changed behind the open dialog", async ({ page }) => {
  const agent = unique("counted-bot");
  await ingest503(agent, 4);
  const api = await dashboardApi();
  const rows = (await (await api.get(`/api/interruptions?agent_name=${agent}`)).json()) as { interruption_id: string }[];
  expect(rows).toHaveLength(4);
  expect((await api.post("/api/interruptions/bulk", { data: { action: "acknowledge", ids: rows.slice(0, 2).map((r) => r.interruption_id) } })).ok()).toBeTruthy();
  await signIn(page, "responder");
  await page.goto(`/inbox?agent_name=${agent}&tab=unresolved`);
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(4);
  await page.getByTestId("tab-acknowledged").click();
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(2);

  await inboxRows(page).first().getByRole("checkbox").check();
  await page.getByRole("button", { name: "Select all 2 matching" }).click();
  await page.getByTestId("bulk-bar").getByRole("button", { name: /^Resolve/ }).click();
  const dialog = page.getByRole("dialog", { name: "Resolve 2 interruptions?" });
  await expect(dialog).toBeVisible();
  await page.goBack(); // the view is all unresolved again, behind the dialog
  await expect(page).toHaveURL(/[?&]tab=unresolved(&|$)/);
  if (await dialog.isVisible()) {
    await dialog.getByRole("button", { name: "Resolve 2", exact: true }).click();
    await expect(dialog).toBeHidden();
  }
  const after = (await (await api.get(`/api/interruptions?agent_name=${agent}&status=open`)).json()) as unknown[];
  expect(after).toHaveLength(2); // the two open ones were not in what was counted
  await api.dispose();
});

test("grouped view: groups with counts and trend; resolving a group resolves its members", async ({ page }) => {
  const agent = unique("group-bot");
  await ingest503(agent, 3, "model-a");
  await ingest503(agent, 2, "model-b");
  await signIn(page, "responder");
  await page.goto(`/inbox?agent_name=${agent}`);
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(5);

  await page.getByLabel("Group by fingerprint").check();
  await expect(page).toHaveURL(/[?&]group=true(&|$)/);
  await inboxSettled(page);
  await expect(groupRows(page)).toHaveCount(2);
  const a = groupRows(page).filter({ hasText: "model-a" });
  const b = groupRows(page).filter({ hasText: "model-b" });
  await expect(a.getByTestId("group-count")).toHaveText("3");
  await expect(b.getByTestId("group-count")).toHaveText("2");
  await expect(a.getByTestId("group-type")).toHaveText("service_unavailable");
  await expect(a.getByTestId("group-state")).toHaveText("3 open · 0 ack · 0 resolved");
  await expect(a.getByTestId("group-trend")).toBeVisible();
  expect((await a.getByTestId("group-trend").getAttribute("data-values"))!.split(",").map(Number).reduce((x, y) => x + y, 0)).toBe(3);
  await expect(page.getByTestId("inbox-showing")).toHaveText("2 groups of 5 interruptions");
  await snapshot(page, "inbox-grouped");

  const fingerprint = await a.getAttribute("data-fingerprint");
  await a.getByRole("button", { name: "Resolve group" }).click();
  const dialog = page.getByRole("dialog", { name: "Resolve 3 interruptions?" });
  await expect(dialog.getByTestId("bulk-dialog-summary")).toContainText(`all 3 interruptions in the group service_unavailable · ${agent}`);
  await dialog.getByRole("button", { name: "Resolve 3", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: "Resolved 3 interruptions" })).toBeVisible();

  // Unresolved only: the group left; the Resolved tab shows it resolved (still grouped).
  await expect(groupRows(page)).toHaveCount(1);
  await expect(tabCount(page, "resolved")).toHaveText("3");
  await page.getByTestId("tab-resolved").click();
  await expect(page).toHaveURL(/[?&]group=true(&|$)/);
  await inboxSettled(page);
  const resolved = page.locator(`[data-testid="group-table"] tr[data-fingerprint="${fingerprint}"]`);
  await expect(resolved.getByTestId("group-state")).toHaveText("0 open · 0 ack · 3 resolved");

  // Its members: the list filtered by fingerprint, every one resolved.
  await resolved.getByRole("button", { name: "Members" }).click();
  await expect(page).toHaveURL(new RegExp(`[?&]fingerprint=${fingerprint}(&|$)`));
  await expect(page).not.toHaveURL(/[?&]group=true/);
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(3);
  expect(new Set(await inboxRows(page).getByTestId("cell-status").allTextContents())).toEqual(new Set(["resolved"]));
  await expect(page.getByTestId("fingerprint-filter")).toContainText(fingerprint!);

  // Back to the groups, by keyboard: o opens the focused group's members.
  await page.getByTestId("fingerprint-filter").getByRole("button", { name: "Back to groups" }).click();
  await inboxSettled(page);
  await page.keyboard.press("j");
  await expect(groupRows(page).first()).toBeFocused();
  await page.keyboard.press("o");
  await expect(page).toHaveURL(/[?&]fingerprint=/);
});

test("a resolved failure that fires again is marked regressed", async ({ page }) => {
  const agent = unique("regress-bot");
  await ingest503(agent, 1);
  await signIn(page, "responder");
  await page.goto(`/inbox?agent_name=${agent}&unresolved=false`);
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(1);
  await expect(inboxRows(page).getByTestId("regressed")).toHaveCount(0);
  await inboxRows(page).first().getByRole("button", { name: "Resolve", exact: true }).click();
  await page.getByRole("dialog", { name: "Resolve interruption" }).getByRole("button", { name: "Resolve", exact: true }).click();
  await expect(inboxRows(page).first().getByTestId("cell-status")).toHaveText("resolved");

  // The same failure (type + agent + model + code) again.
  await ingest503(agent, 1);
  await page.goto(`/inbox?agent_name=${agent}&tab=review`);
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(1);
  await expect(inboxRows(page).first().getByTestId("cell-status")).toHaveText("open");
  await expect(inboxRows(page).first().getByTestId("regressed")).toHaveText(/regressed/);

  // "Regressed only" keeps just that one, across all statuses too.
  await page.getByTestId("tab-resolved").click();
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(1);
  await expect(inboxRows(page).getByTestId("regressed")).toHaveCount(0);
  await page.getByLabel("Regressed only").check();
  await expect(page).toHaveURL(/[?&]regressed=true(&|$)/);
  await inboxSettled(page);
  await expect(page.getByTestId("inbox-empty")).toBeVisible();
  await page.getByTestId("tab-unresolved").click();
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(1);
  await expect(inboxRows(page).first().getByTestId("regressed")).toBeVisible();

  // The grouped view marks the group too.
  await page.getByLabel("Group by fingerprint").check();
  await inboxSettled(page);
  await expect(groupRows(page)).toHaveCount(1);
  await expect(groupRows(page).first().getByTestId("regressed")).toBeVisible();
});
