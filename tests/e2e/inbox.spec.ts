// The inbox (SPEC §6): filters in the URL, triage from the table, bulk actions, roles, keyboard,
// live arrivals and untrusted text. Each test picks its own interruptions (by agent or type) so
// the tests do not depend on each other's changes to the shared seeded data.
import { expect, test, type Page } from "@playwright/test";
import { holdFirstAnswer, inboxRows, inboxSettled, signIn, snapshot } from "./fixtures";

// Mirrors scripts/e2e-server.ts (importing it would start a server).
const XSS_PAYLOAD = `<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>`;

const total = (page: Page) => page.getByTestId("inbox-total");
const severityGroup = (page: Page) => page.getByRole("group", { name: "Severity" });

/** Waits until the table has settled (no fetch in flight, no stale rows shown). */
async function unresolvedCount(page: Page): Promise<number> {
  await expect(total(page)).toHaveText(/^\d+ unresolved$/);
  return Number((await total(page).textContent())!.split(" ")[0]);
}

const visibleSeverities = (page: Page) => inboxRows(page).locator('[data-testid^="severity-"]').allTextContents();

test("filter by severity through the controls, then reopen the same view from a pasted URL", async ({ page, context }) => {
  await signIn(page, "viewer");
  await page.goto("/inbox");
  await inboxSettled(page);
  expect(new Set(await visibleSeverities(page)).size).toBeGreaterThan(1);

  await severityGroup(page).getByRole("button", { name: "critical", exact: true }).click();
  await expect(page).toHaveURL(/[?&]severity=critical(&|$)/);
  await expect(severityGroup(page).getByRole("button", { name: "critical", exact: true })).toHaveAttribute("aria-pressed", "true");
  await inboxSettled(page);
  await expect.poll(async () => [...new Set(await visibleSeverities(page))]).toEqual(["critical"]);
  const shown = await inboxRows(page).count();
  expect(shown).toBeGreaterThan(0);
  // the count is its own query: it may still show the unfiltered total for a moment after the rows changed
  await expect(total(page)).toHaveText(`${shown} unresolved`);
  const criticalTotal = shown;
  await expect(page.getByTestId("inbox-severity-counts")).toHaveText(`critical${criticalTotal}`);

  // A link someone pasted: a new page opens the same filtered view, with the controls showing it.
  const pasted = await context.newPage();
  await pasted.goto(page.url());
  await inboxSettled(pasted);
  await expect(inboxRows(pasted)).toHaveCount(shown);
  await pasted.goto("/inbox?severity=critical");
  await inboxSettled(pasted);
  await expect(severityGroup(pasted).getByRole("button", { name: "critical", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(severityGroup(pasted).getByRole("button", { name: "high", exact: true })).toHaveAttribute("aria-pressed", "false");
  await expect(inboxRows(pasted)).toHaveCount(shown);
  expect([...new Set(await visibleSeverities(pasted))]).toEqual(["critical"]);
  await expect(total(pasted)).toHaveText(`${criticalTotal} unresolved`);

  // A type picked in the dropdown narrows further and joins the URL (under the API's name).
  await pasted.getByTestId("filter-type").getByRole("button").first().click();
  await pasted.getByRole("group", { name: "Type" }).getByLabel("agent_crash").check();
  await expect(pasted).toHaveURL(/[?&]interruption_type=agent_crash(&|$)/);
  await expect(pasted).toHaveURL(/[?&]severity=critical(&|$)/);
  await pasted.keyboard.press("Escape");
  await inboxSettled(pasted);
  await expect.poll(async () => [...new Set(await inboxRows(pasted).getByTestId("cell-type").allTextContents())]).toEqual(["agent_crash"]);
  await expect(pasted.getByTestId("filter-type").getByRole("button").first()).toContainText("agent_crash");

  // Several filters and the sort survive a reload too.
  await pasted.goto("/inbox?severity=high,medium&sort=severity&order=asc&range=7d");
  await inboxSettled(pasted);
  await expect(severityGroup(pasted).getByRole("button", { name: "high", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(pasted.getByRole("radio", { name: "7 d" })).toHaveAttribute("aria-checked", "true");
  await expect(pasted.getByRole("columnheader", { name: /Severity/ })).toHaveAttribute("aria-sort", "ascending");
  const sevs = await visibleSeverities(pasted);
  expect(sevs.indexOf("high")).toBeGreaterThan(sevs.lastIndexOf("medium"));
});

/**
 * Smaller pages than the UI asks for, so the seeded data spans several (the server's Link header
 * then carries the same limit onwards).
 */
async function pagesOfTen(page: Page) {
  await page.route(/\/api\/interruptions\?/, (route) => {
    const url = new URL(route.request().url());
    if (url.searchParams.get("limit") === "50") url.searchParams.set("limit", "10");
    return route.continue({ url: url.toString() });
  });
}

test("sorting is done by the server, and Load more follows the Link header with the page count in the URL", async ({ page }) => {
  await pagesOfTen(page);
  await signIn(page, "viewer");
  await page.goto("/inbox");
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(10);
  await expect(page.getByTestId("inbox-showing")).toHaveText("Showing 10");
  const first = await inboxRows(page).evaluateAll((trs) => trs.map((t) => t.getAttribute("data-id")));

  await page.getByRole("button", { name: "Load more" }).click();
  await expect(inboxRows(page)).toHaveCount(20);
  await expect(page).toHaveURL(/[?&]pages=2(&|$)/);
  const both = await inboxRows(page).evaluateAll((trs) => trs.map((t) => t.getAttribute("data-id")));
  expect(both.slice(0, 10)).toEqual(first);
  expect(new Set(both).size).toBe(20);
  const times = await inboxRows(page).locator("time").evaluateAll((ts) => ts.map((t) => Date.parse(t.getAttribute("datetime")!)));
  expect([...times].sort((a, b) => b - a)).toEqual(times);

  // The copied link reopens with both pages.
  await page.reload();
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(20);
  expect(await inboxRows(page).evaluateAll((trs) => trs.map((t) => t.getAttribute("data-id")))).toEqual(both);

  // A header click sorts on the server (offset paging) and starts again from one page.
  await page.getByRole("columnheader", { name: /Severity/ }).getByRole("button").click();
  await expect(page).toHaveURL(/[?&]sort=severity(&|$)/);
  await expect(page).not.toHaveURL(/[?&]pages=/);
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(10);
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(inboxRows(page)).toHaveCount(20);
  const rank = { critical: 0, high: 1, medium: 2, low: 3 } as Record<string, number>;
  const sevs = (await visibleSeverities(page)).map((s) => rank[s]);
  expect([...sevs].sort((a, b) => a - b)).toEqual(sevs);
  await expect(page.getByRole("columnheader", { name: /Severity/ })).toHaveAttribute("aria-sort", "descending");

  await page.getByRole("columnheader", { name: /Severity/ }).getByRole("button").click();
  await expect(page).toHaveURL(/[?&]order=asc(&|$)/);
  await inboxSettled(page);
  await expect(page.getByRole("columnheader", { name: /Severity/ })).toHaveAttribute("aria-sort", "ascending");
  const asc = (await visibleSeverities(page)).map((s) => rank[s]);
  expect([...asc].sort((a, b) => b - a)).toEqual(asc);
});

test("a page that failed to load is asked for again by Load more", async ({ page }) => {
  await pagesOfTen(page); // and the next page's first answers fail (below)
  await signIn(page, "viewer");
  await page.goto("/inbox");
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(10);
  await page.route(
    (url) => url.pathname === "/api/interruptions" && url.searchParams.has("cursor"),
    (route) => route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ error: "Internal server error" }) }),
    { times: 2 }, // the request and the query's one retry
  );
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(page.getByText("Could not load more")).toBeVisible();
  await expect(inboxRows(page)).toHaveCount(10);
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(inboxRows(page)).toHaveCount(20);
  await expect(page.getByText("Could not load more")).toHaveCount(0);
});

test("resolve from the inbox with a note updates the row and the counts", async ({ page }) => {
  await signIn(page, "responder");
  await page.goto("/inbox?agent_name=explorer&interruption_type=unauthorized_action");
  await inboxSettled(page);
  const before = await unresolvedCount(page);
  expect(before).toBeGreaterThan(0);
  const row = inboxRows(page).first();
  await expect(row.getByTestId("cell-status")).toHaveText("open");

  await row.getByRole("button", { name: "Resolve", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Resolve interruption" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel("Note (optional)")).toBeFocused();
  await dialog.getByLabel("Note (optional)").fill("Expected: the key directory is off limits.");
  await dialog.getByRole("button", { name: "Resolve", exact: true }).click();
  await expect(dialog).toBeHidden();

  // The row stays in place with its new status; the counts drop at once.
  await expect(row.getByTestId("cell-status")).toHaveText("resolved");
  await expect(total(page)).toHaveText(`${before - 1} unresolved`);
  await expect(row.getByRole("button", { name: "Resolve", exact: true })).toBeDisabled();

  // The note reached the server.
  const id = await row.getAttribute("data-id");
  const activity = await (await page.request.get(`/api/interruptions/${id}/activity`)).json();
  expect(JSON.stringify(activity)).toContain("the key directory is off limits");

  // After a reload the unresolved view no longer lists it.
  await page.reload();
  await inboxSettled(page);
  await expect(page.locator(`tr[data-id="${id}"]`)).toHaveCount(0);
});

test("acknowledge from the inbox updates the row and the open count", async ({ page }) => {
  await signIn(page, "responder");
  await page.goto("/inbox?agent_name=explorer&interruption_type=tool_failure");
  await inboxSettled(page);
  const openCount = page.getByTestId("inbox-open-count");
  await expect(openCount).toHaveText(/^\d+ open · \d+ acknowledged$/);
  const [open, acked] = ((await openCount.textContent())!.match(/\d+/g) ?? []).map(Number);
  const unresolved = await unresolvedCount(page);

  const openRow = inboxRows(page).filter({ has: page.getByTestId("cell-status").getByText("open", { exact: true }) }).first();
  const row = page.locator(`tr[data-id="${await openRow.getAttribute("data-id")}"]`);
  await row.getByRole("button", { name: "Acknowledge", exact: true }).click();
  await expect(row.getByTestId("cell-status")).toHaveText("acknowledged");
  await expect(openCount).toHaveText(`${open - 1} open · ${acked + 1} acknowledged`);
  await expect(total(page)).toHaveText(`${unresolved} unresolved`); // still unresolved
  await expect(row.getByRole("button", { name: "Acknowledge", exact: true })).toBeDisabled();
});

test("a failed write shows the server's error", async ({ page }) => {
  await signIn(page, "responder");
  await page.route("**/api/interruptions/*/acknowledge", (route) =>
    route.fulfill({ status: 409, contentType: "application/json", body: JSON.stringify({ error: "Interruption is already resolved" }) }),
  );
  await page.goto("/inbox?interruption_type=slow_response");
  await inboxSettled(page);
  await inboxRows(page).first().getByRole("button", { name: "Acknowledge", exact: true }).click();
  const notice = page.getByTestId("inbox-notice");
  await expect(notice).toHaveAttribute("role", "alert");
  await expect(notice).toContainText("Could not acknowledge: Interruption is already resolved");
  await expect(inboxRows(page).first().getByTestId("cell-status")).toHaveText("open");
});

test("while a new filter's count loads, the old count is shown as updating and no select-all offers it", async ({ page }) => {
  await signIn(page, "responder");
  await page.goto("/inbox");
  await inboxSettled(page);
  const before = await unresolvedCount(page);
  const counts = page.getByTestId("inbox-total").locator("..");
  const release = await holdFirstAnswer(page, (url) => url.pathname === "/api/interruptions/count" && url.searchParams.get("severity") === "critical" && url.searchParams.get("resolved") === "false" && url.searchParams.get("status") !== "open");

  await severityGroup(page).getByRole("button", { name: "critical", exact: true }).click();
  await expect.poll(async () => [...new Set(await visibleSeverities(page))]).toEqual(["critical"]);
  const shown = await inboxRows(page).count();
  expect(shown).toBeGreaterThan(1);
  expect(shown).toBeLessThan(before);
  // the rows are the new filter's; the count is still the old one's, and says it is updating
  await expect(total(page)).toHaveText(`${before} unresolved`);
  await expect(counts).toHaveAttribute("aria-busy", "true");
  await inboxRows(page).first().getByRole("checkbox").check();
  await expect(page.getByTestId("bulk-selected")).toHaveText("1 selected");
  await expect(page.getByRole("button", { name: /^Select all \d+ matching$/ })).toHaveCount(0);

  release();
  await expect(total(page)).toHaveText(`${shown} unresolved`);
  await expect(counts).toHaveAttribute("aria-busy", "false");
  await expect(page.getByRole("button", { name: `Select all ${shown} matching` })).toBeVisible();
});

test("while a new filter's rows load, the previous rows shown cannot be selected: a bulk action acts only on rows on screen", async ({ page }) => {
  await signIn(page, "responder");
  await page.goto("/inbox");
  await inboxSettled(page);
  const release = await holdFirstAnswer(page, (url) => url.pathname === "/api/interruptions" && url.searchParams.get("severity") === "critical");
  await severityGroup(page).getByRole("button", { name: "critical", exact: true }).click();
  // the previous filter's rows stay on screen meanwhile: before, "Select all shown" took them,
  // and once the new rows came "Resolve selected" resolved rows no longer shown
  await expect(page.getByRole("checkbox", { name: "Select all shown" })).toBeDisabled();
  await expect(inboxRows(page).first().getByRole("checkbox")).toBeDisabled();
  release();
  await expect.poll(async () => [...new Set(await visibleSeverities(page))]).toEqual(["critical"]);
  await expect(page.getByRole("checkbox", { name: "Select all shown" })).toBeEnabled();
  await expect(page.getByTestId("bulk-selected")).toHaveCount(0);
});

test("the bulk dialog stays while its action runs (Cancel and Escape wait), then says what it did", async ({ page }) => {
  await signIn(page, "responder");
  await page.goto("/inbox?interruption_type=rate_limit");
  await inboxSettled(page);
  await inboxRows(page).first().getByRole("checkbox").check();
  await page.getByRole("button", { name: "Acknowledge selected" }).click();
  const dialog = page.getByTestId("bulk-dialog");
  const release = await holdFirstAnswer(page, (url) => url.pathname === "/api/interruptions/bulk");
  await dialog.getByRole("button", { name: "Acknowledge 1" }).click();
  await expect(dialog.getByRole("button", { name: "Working…" })).toBeVisible();
  // before: Cancel closed it while the server went on, and the outcome was dropped (no notice, the selection kept)
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeDisabled();
  // twice: Chromium lets a second Escape close a dialog whatever the page says
  await page.keyboard.press("Escape");
  await page.keyboard.press("Escape");
  await expect(dialog.getByRole("button", { name: "Working…" })).toBeVisible();
  release();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("inbox-notice")).toContainText("Acknowledged 1");
  await expect(page.getByTestId("bulk-selected")).toHaveCount(0);
  // the keyboard goes on from the table (before: from <body>, the button it came from being gone)
  await expect(page.getByTestId("inbox-table").locator("tr:focus")).toHaveCount(1);
});

test("a custom range's time is taken once it is done (Enter or leaving the field): one history entry, and no year before 1970", async ({ page }) => {
  await signIn(page, "responder");
  await page.goto("/inbox?range=custom");
  await inboxSettled(page);
  const before = page.url();
  const from = page.getByLabel("From");
  const startsAsked: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname === "/api/interruptions") startsAsked.push(url.searchParams.get("start_ns") ?? "");
  });
  // before: every change of the field (each typed segment) was a URL of its own and a round of queries
  await from.fill("2026-12-06T08:30");
  expect(page.url()).toBe(before);
  await from.press("Enter");
  await expect(page).toHaveURL(/[?&]from=2026-12-06T/);
  await inboxSettled(page);
  // a year before 1970 (the API refuses a negative start) is not taken
  const edited = page.url();
  await from.fill("1969-07-20T20:17");
  await from.press("Enter");
  await expect(from).toHaveValue("2026-12-06T08:30");
  expect(page.url()).toBe(edited);
  expect(startsAsked.some((s) => s.startsWith("-"))).toBe(false);
  await page.goBack();
  await expect(page).toHaveURL(before);
});

test("← Inbox on an interruption opened from a filtered inbox goes back to that view, not the default one", async ({ page }) => {
  await signIn(page, "responder");
  await page.goto("/inbox?severity=critical&range=7d");
  await inboxSettled(page);
  const filtered = new URL(page.url());
  await page.keyboard.press("j");
  await page.keyboard.press("o");
  await expect(page).toHaveURL(/\/interruptions\/[0-9a-f]+$/);
  // before: "/inbox", the last 24 hours of every severity
  await page.getByRole("link", { name: "← Inbox" }).click();
  await expect(page).toHaveURL(`${filtered.pathname}${filtered.search}`);
  await inboxSettled(page);
  await expect.poll(async () => [...new Set(await visibleSeverities(page))]).toEqual(["critical"]);
});

test("coming back to the inbox from an interruption shows the same rows from the cache, not a window moved on", async ({ page }) => {
  await signIn(page, "responder");
  await page.goto("/inbox?range=7d");
  await inboxSettled(page);
  const ids = () => inboxRows(page).evaluateAll((rows) => rows.map((r) => r.getAttribute("data-id")));
  const before = await ids();
  expect(before.length).toBeGreaterThan(1);
  const listed: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.pathname === "/api/interruptions" && !url.searchParams.has("arrived_after_ns")) listed.push(url.search); // not the poll for new ones
  });
  await page.keyboard.press("j");
  await page.keyboard.press("o");
  await expect(page).toHaveURL(/\/interruptions\/[0-9a-f]+$/);
  await page.getByRole("link", { name: "← Inbox" }).click();
  await inboxSettled(page);
  expect(await ids()).toEqual(before);
  // before: the window was pinned anew, so every page was read again (and rows that arrived meanwhile pushed in)
  expect(listed).toEqual([]);
});

test("bulk resolve of all N matching asks for confirmation, then they leave the unresolved view", async ({ page }) => {
  await signIn(page, "responder");
  await page.goto("/inbox?interruption_type=auth_error");
  await inboxSettled(page);
  const n = await unresolvedCount(page);
  expect(n).toBeGreaterThan(1);
  await expect(inboxRows(page)).toHaveCount(n);

  // One row ticked, then widened to everything matching the filter.
  await inboxRows(page).first().getByRole("checkbox").check();
  await expect(page.getByTestId("bulk-selected")).toHaveText("1 selected");
  await page.getByRole("button", { name: `Select all ${n} matching` }).click();
  await expect(page.getByRole("checkbox", { name: "Select all shown" })).toBeChecked();
  await expect(page.getByTestId("bulk-selected")).toHaveText(`All ${n} interruptions matching selected`);
  await page.getByRole("button", { name: "Resolve selected" }).click();

  const dialog = page.getByRole("dialog", { name: `Resolve ${n} interruptions?` });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId("bulk-dialog-summary")).toContainText(`all ${n} interruptions`);
  // Cancelling changes nothing.
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(total(page)).toHaveText(`${n} unresolved`);

  await page.getByRole("button", { name: "Resolve selected" }).click();
  await dialog.getByRole("button", { name: `Resolve ${n}`, exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: `Resolved ${n} interruptions` })).toBeVisible();
  await expect(page.getByTestId("inbox-empty")).toBeVisible();
  await expect(total(page)).toHaveText("0 unresolved");

  // With "unresolved only" off they are still there, resolved.
  await page.getByLabel("Unresolved only").uncheck();
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(n);
  expect(new Set(await inboxRows(page).getByTestId("cell-status").allTextContents())).toEqual(new Set(["resolved"]));
});

test("bulk acknowledge of a page selection states the count and updates the rows", async ({ page }) => {
  await signIn(page, "responder");
  await page.goto("/inbox?interruption_type=safety_filter");
  await inboxSettled(page);
  const n = await inboxRows(page).count();
  expect(n).toBeGreaterThan(1);
  for (const box of await inboxRows(page).getByRole("checkbox").all()) await box.check();
  await expect(page.getByTestId("bulk-selected")).toHaveText(`${n} selected`);
  await expect(page.getByRole("checkbox", { name: "Select all shown" })).toBeChecked();
  // Every match is already ticked: no "select all matching" offer.
  await expect(page.getByRole("button", { name: /^Select all \d+ matching$/ })).toHaveCount(0);
  await page.getByRole("button", { name: "Acknowledge selected" }).click();
  const dialog = page.getByRole("dialog", { name: `Acknowledge ${n} interruptions?` });
  await expect(dialog.getByTestId("bulk-dialog-summary")).toHaveText(`This will acknowledge the ${n} interruptions you selected.`);
  await dialog.getByRole("button", { name: `Acknowledge ${n}`, exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect.poll(async () => [...new Set(await inboxRows(page).getByTestId("cell-status").allTextContents())]).toEqual(["acknowledged"]);
  await expect(page.getByTestId("bulk-selected")).toHaveCount(0);
});

test("grouped view collapses one fingerprint into a group whose actions cover its members", async ({ page }) => {
  // (Not rate_limit: the detail page's test needs an open one of those. The bricked
  // conversation's errors share one fingerprint; the sweeper's unsettled-turn findings do not.)
  await signIn(page, "responder");
  await page.goto("/inbox?interruption_type=state_machine_error&q=unbalanced_tool_calls");
  await inboxSettled(page);
  const n = await inboxRows(page).count();
  expect(n).toBeGreaterThan(2);

  // The server groups by fingerprint (type + agent + model + error code).
  await page.getByLabel("Group by fingerprint").check();
  await expect(page).toHaveURL(/[?&]group=true(&|$)/);
  const groups = page.locator('[data-testid="group-table"] tbody tr');
  await expect(groups).toHaveCount(1);
  await expect(groups.getByTestId("group-count")).toHaveText(String(n));
  await expect(groups.getByTestId("group-state")).toHaveText(`${n} open · 0 ack · 0 resolved`);
  await expect(page.getByTestId("inbox-showing")).toHaveText(`1 group of ${n} interruptions`);

  await groups.getByRole("button", { name: "Acknowledge group" }).click();
  const dialog = page.getByRole("dialog", { name: `Acknowledge ${n} interruptions?` });
  await expect(dialog.getByTestId("bulk-dialog-summary")).toContainText(`all ${n} interruptions in the group state_machine_error`);
  await dialog.getByRole("button", { name: `Acknowledge ${n}`, exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(groups.getByTestId("group-state")).toHaveText(`0 open · ${n} ack · 0 resolved`);

  await page.getByLabel("Group by fingerprint").uncheck();
  await expect(inboxRows(page)).toHaveCount(n);
  await expect.poll(async () => [...new Set(await inboxRows(page).getByTestId("cell-status").allTextContents())]).toEqual(["acknowledged"]);
});

test("a viewer sees no triage actions, and the API refuses the viewer's resolve", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/inbox");
  await inboxSettled(page);
  await expect(inboxRows(page).first()).toBeVisible();
  await expect(page.getByTestId("read-only-note")).toBeVisible();
  await expect(page.getByRole("button", { name: "Resolve", exact: true })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Acknowledge", exact: true })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Resolve selected" })).toHaveCount(0);
  await expect(page.getByTestId("inbox-table").getByRole("checkbox")).toHaveCount(0);
  await expect(inboxRows(page).first().getByRole("link", { name: "Open" })).toBeVisible();

  // The shortcut does not open a resolve dialog either.
  await page.keyboard.press("j");
  await page.keyboard.press("r");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(page.getByTestId("inbox-notice")).toContainText("Your role (viewer) cannot resolve");

  // Straight to the API with the viewer's session cookie (same origin): 403, nothing changes.
  const id = await inboxRows(page).first().getAttribute("data-id");
  const origin = new URL(page.url()).origin;
  const res = await page.request.post(`/api/interruptions/${id}/resolve`, { data: { note: "nope" }, headers: { origin } });
  expect(res.status()).toBe(403);
  expect((await res.json()).error).toContain("viewer");
  const ack = await page.request.post(`/api/interruptions/${id}/acknowledge`, { data: {}, headers: { origin } });
  expect(ack.status()).toBe(403);
  const after = await (await page.request.get(`/api/interruptions/${id}`)).json();
  expect(after.status).not.toBe("resolved");
});

test("keyboard: j/k move, o and Enter open, / focuses search", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/inbox");
  await inboxSettled(page);
  const ids = await inboxRows(page).evaluateAll((trs) => trs.map((t) => t.getAttribute("data-id")));
  expect(ids.length).toBeGreaterThan(3);

  // "/" focuses search, and letters typed there stay in the field.
  const search = page.getByRole("searchbox", { name: "Search interruptions" });
  await page.keyboard.press("/");
  await expect(search).toBeFocused();
  await page.keyboard.type("jk");
  await expect(search).toHaveValue("jk");
  await expect(page.locator("tr[data-focused]")).toHaveCount(0);
  await search.fill("");
  await page.keyboard.press("Escape");
  await expect(search).not.toBeFocused();
  await expect(page).not.toHaveURL(/[?&]q=/);
  await inboxSettled(page);

  await page.keyboard.press("j");
  await expect(inboxRows(page).nth(0)).toBeFocused();
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await expect(inboxRows(page).nth(2)).toBeFocused();
  await expect(inboxRows(page).nth(2)).toHaveAttribute("data-focused", "true");
  await page.keyboard.press("k");
  await expect(inboxRows(page).nth(1)).toBeFocused();

  await page.keyboard.press("o");
  await expect(page).toHaveURL(new RegExp(`/interruptions/${ids[1]}$`));

  await page.goto("/inbox");
  await inboxSettled(page);
  await page.keyboard.press("j");
  await expect(inboxRows(page).nth(0)).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/interruptions/${ids[0]}$`));
});

test("the XSS probe shows as literal text and runs nothing", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/inbox");
  await inboxSettled(page);
  await page.getByRole("searchbox", { name: "Search interruptions" }).fill("onerror");
  await expect(page).toHaveURL(/[?&]q=onerror/);
  await inboxSettled(page);
  const row = inboxRows(page).first();
  await expect(row.getByTestId("cell-agent")).toHaveText(`agent${XSS_PAYLOAD}`);
  await expect(row.getByTestId("cell-summary")).toContainText(XSS_PAYLOAD);

  // The agent filter lists the name too (as text).
  await page.getByTestId("filter-agent").getByRole("button").first().click();
  await expect(page.getByTestId("filter-agent").getByText(`agent${XSS_PAYLOAD}`)).toBeVisible();

  await expect(page.locator("main img, main script")).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
});

test("new events announce themselves without moving rows until asked", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/inbox");
  await inboxSettled(page);
  const before = await inboxRows(page).evaluateAll((trs) => trs.map((t) => t.getAttribute("data-id")));
  const unresolved = await unresolvedCount(page);

  // A new failing call arrives (ingested with the admin's session, which has the ingest scope).
  // It joins an existing demo session, so other specs' session lists keep their size.
  const origin = new URL(page.url()).origin;
  const [host] = await (await page.request.get("/api/interruptions?agent_name=explorer&limit=1")).json();
  const start = BigInt(Date.now()) * 1_000_000n;
  const res = await page.request.post("/api/ingest/calls", {
    headers: { origin },
    data: {
      call_id: `e2e-inbox-new-${Date.now()}`,
      session_id: host.session_id,
      agent_name: "explorer",
      start_ns: String(start),
      end_ns: String(start + 300_000_000n),
      status_code: 500,
      error: "upstream exploded (e2e new arrival)",
      input_messages: [{ role: "user", parts: [{ type: "text", content: "hello" }] }],
      output_messages: [],
    },
  });
  expect(res.ok(), await res.text()).toBeTruthy();

  const banner = page.getByTestId("new-banner");
  await expect(banner).toHaveText(/^1 new interruption/, { timeout: 20_000 });
  // Nothing moved meanwhile.
  expect(await inboxRows(page).evaluateAll((trs) => trs.map((t) => t.getAttribute("data-id")))).toEqual(before);
  await expect(total(page)).toHaveText(`${unresolved} unresolved`);

  // A bulk action refetches the list, whose first page now says more has arrived: what arrived
  // before it is still announced (before, the banner counted from the refetch and lost it).
  await inboxRows(page).first().getByRole("checkbox").check();
  await page.getByRole("button", { name: "Acknowledge selected" }).click();
  const acknowledge = page.getByRole("dialog", { name: "Acknowledge 1 interruption?" });
  await acknowledge.getByRole("button", { name: "Acknowledge 1", exact: true }).click();
  await expect(acknowledge).toBeHidden();
  await expect(inboxRows(page).first().getByTestId("cell-status")).toHaveText("acknowledged");
  await expect(banner).toHaveText(/^1 new interruption/);
  const reopen = await page.request.post(`/api/interruptions/${before[0]}/reopen`, { headers: { origin } });
  expect(reopen.ok(), await reopen.text()).toBeTruthy();

  await banner.click();
  await expect(banner).toBeHidden();
  await expect(inboxRows(page).first().getByTestId("cell-summary")).toContainText("upstream exploded (e2e new arrival)");
  await expect(inboxRows(page).first().getByTestId("cell-agent")).toHaveText("explorer");
  expect(await inboxRows(page).evaluateAll((trs) => trs.slice(1).map((t) => t.getAttribute("data-id")))).toEqual(before);
  await expect(total(page)).toHaveText(`${unresolved + 1} unresolved`);
  await snapshot(page, "inbox");

  // A late arrival: a call that failed two minutes ago, before the view was read, sent only now
  // (an agent that uploads what it buffered). Before, the banner asked only for what occurred
  // after the newest row shown, and never announced it.
  const shown = await inboxRows(page).evaluateAll((trs) => trs.map((t) => t.getAttribute("data-id")));
  const lateStart = BigInt(Date.now() - 120_000) * 1_000_000n;
  const late = await page.request.post("/api/ingest/calls", {
    headers: { origin },
    data: {
      call_id: `e2e-inbox-late-${Date.now()}`, session_id: host.session_id, agent_name: "explorer",
      start_ns: String(lateStart), end_ns: String(lateStart + 300_000_000n), status_code: 500,
      error: "upstream exploded (e2e late arrival)", input_messages: [{ role: "user", parts: [{ type: "text", content: "hello" }] }], output_messages: [],
    },
  });
  expect(late.ok(), await late.text()).toBeTruthy();
  await expect(banner).toHaveText(/^1 new interruption/, { timeout: 20_000 });
  expect(await inboxRows(page).evaluateAll((trs) => trs.map((t) => t.getAttribute("data-id")))).toEqual(shown);
  await banner.click();
  await expect(banner).toBeHidden();
  const lateRow = inboxRows(page).filter({ hasText: "upstream exploded (e2e late arrival)" });
  await expect(lateRow).toHaveCount(1);
  await expect(total(page)).toHaveText(`${unresolved + 2} unresolved`);

  // Leave the shared data as it was for other tests' counts.
  await lateRow.getByRole("button", { name: "Resolve", exact: true }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Resolve", exact: true }).click();
  await expect(total(page)).toHaveText(`${unresolved + 1} unresolved`);
  await inboxRows(page).first().getByRole("button", { name: "Resolve", exact: true }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Resolve", exact: true }).click();
  await expect(total(page)).toHaveText(`${unresolved} unresolved`);
});
