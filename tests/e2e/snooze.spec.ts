// Snooze and mute in the browser (issue 15): `s` snoozes the focused row through the dialog, the
// Snoozed tab holds it with what wakes it, Wake brings it back; a group snoozed from the grouped
// view takes new arrivals too; a mute rule added in Settings makes matching arrivals snoozed and
// its removal wakes them. Each test ingests failures under an agent name of its own.
import { expect, test } from "@playwright/test";
import { dashboardApi, inboxRows, inboxSettled, signIn, snapshot, tabCount, unique } from "./fixtures";


/** `n` failing calls (HTTP 503: service_unavailable) of `agent`, each in a conversation of its own. */
async function ingest503(agent: string, n: number) {
  const ctx = await dashboardApi();
  const now = BigInt(Date.now()) * 1_000_000n;
  const calls = Array.from({ length: n }, (_, i) => {
    const start = now - BigInt(n - i) * 1_000_000_000n;
    const id = unique(`${agent}-call-${i}`);
    return {
      call_id: id, session_id: `e2e-snooze-${agent}`, agent_name: agent, model: "e2e-model", start_ns: String(start), end_ns: String(start + 200_000_000n),
      status_code: 503, error: "Service Unavailable", input_messages: [{ role: "user", parts: [{ type: "text", content: `task ${id}` }] }], output_messages: [],
    };
  });
  const res = await ctx.post("/api/ingest/calls", { data: calls });
  expect(res.ok(), await res.text()).toBeTruthy();
  await ctx.dispose();
}

async function statuses(agent: string): Promise<string[]> {
  const ctx = await dashboardApi();
  const res = await ctx.get(`/api/interruptions?agent_name=${agent}`);
  const list = (await res.json()) as { status: string }[];
  await ctx.dispose();
  return list.map((r) => r.status).sort();
}

test("`s` snoozes the focused row; the Snoozed tab holds it and says what wakes it; Wake brings it back", async ({ page }) => {
  const agent = unique("snooze-bot");
  await ingest503(agent, 2);
  await signIn(page, "responder");
  await page.goto(`/inbox?agent_name=${agent}`);
  await inboxSettled(page);
  await expect(tabCount(page, "unresolved")).toHaveText("2");
  await expect(tabCount(page, "snoozed")).toHaveText("0");

  await page.keyboard.press("j");
  const first = inboxRows(page).first();
  await expect(first).toBeFocused();
  const id = await first.getAttribute("data-id");
  await page.keyboard.press("s");
  const dialog = page.getByRole("dialog", { name: "Snooze interruption" });
  await expect(dialog.getByTestId("snooze-about")).toContainText("service_unavailable");
  await dialog.getByLabel("8 hours").check();
  await dialog.getByLabel(/or when it escalates/).check();
  await dialog.getByLabel(/^Reason/).fill("provider incident");
  await snapshot(page, "snooze-dialog");
  await dialog.getByRole("button", { name: "Snooze", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("inbox-notice")).toContainText(`Snoozed service_unavailable of ${agent}`);
  // changed in place (no jump); the counts move to the Snoozed tab
  await expect(page.locator(`tr[data-id="${id}"]`).getByTestId("cell-status")).toHaveText("snoozed");
  await expect(tabCount(page, "unresolved")).toHaveText("1");
  await expect(tabCount(page, "snoozed")).toHaveText("1");

  // open and snoozed, by their chips: the snoozed one is not counted as acknowledged (as it was)
  await page.goto(`/inbox?agent_name=${agent}&status=open,acknowledged,snoozed`);
  await inboxSettled(page);
  await expect(page.getByTestId("inbox-open-count")).toHaveText("1 open · 0 acknowledged · 1 snoozed");
  await page.goto(`/inbox?agent_name=${agent}`);
  await inboxSettled(page);

  await page.getByTestId("tab-snoozed").click();
  await expect(page).toHaveURL(/[?&]tab=snoozed(&|$)/);
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(1);
  await expect(inboxRows(page).first()).toHaveAttribute("data-id", id!);
  await expect(inboxRows(page).first().getByTestId("cell-snooze")).toHaveText(/^until \w{3} \d+ \d\d:\d\d · escalation$/);
  await snapshot(page, "inbox-snoozed-tab");

  await inboxRows(page).first().getByRole("button", { name: "Wake" }).click();
  await expect(inboxRows(page).first().getByTestId("cell-status")).toHaveText("open");
  await expect(page.getByTestId("inbox-notice")).toContainText("Woke service_unavailable");
  await expect(tabCount(page, "snoozed")).toHaveText("0");
  await expect(tabCount(page, "unresolved")).toHaveText("2");

  const activity = (await (await page.request.get(`/api/interruptions/${id}/activity`)).json()) as { action: string; note: string | null }[];
  expect(activity.map((a) => a.action)).toEqual(["snooze", "reopen"]);
  expect(activity[0].note).toMatch(/^snoozed until .*, or until it escalates: provider incident$/);
});

test("a group snoozed from the grouped view takes new arrivals too", async ({ page }) => {
  const agent = unique("group-snooze-bot");
  await ingest503(agent, 2);
  await signIn(page, "responder");
  await page.goto(`/inbox?agent_name=${agent}&group=true`);
  await inboxSettled(page);
  const group = page.locator('[data-testid="group-table"] tbody tr').first();
  await group.getByRole("button", { name: "Snooze group" }).click();
  const dialog = page.getByRole("dialog", { name: "Snooze group" });
  await expect(dialog.getByTestId("snooze-about")).toContainText("new ones of it as they arrive");
  await dialog.getByLabel("24 hours").check();
  await dialog.getByRole("button", { name: "Snooze", exact: true }).click();
  await expect(page.getByTestId("inbox-notice")).toContainText("Snoozed the group: 2 interruptions now, and new ones as they arrive.");

  await ingest503(agent, 1);
  expect(await statuses(agent)).toEqual(["snoozed", "snoozed", "snoozed"]);
  await page.goto(`/inbox?agent_name=${agent}&tab=snoozed`);
  await inboxSettled(page);
  await expect(inboxRows(page)).toHaveCount(3);
  await expect(tabCount(page, "unresolved")).toHaveText("0");
});

test("a mute rule added in Settings makes matching arrivals snoozed; removing it wakes them", async ({ page }) => {
  const agent = unique("mute-bot");
  await signIn(page, "responder");
  await page.goto("/settings#mute-rules");
  await page.getByRole("button", { name: "Add mute rule" }).click();
  const form = page.getByRole("form", { name: "Add mute rule" });
  await form.getByLabel("Agent", { exact: true }).fill(agent);
  await form.getByRole("combobox", { name: "Type" }).selectOption("service_unavailable");
  await form.getByLabel("Reason").fill("staging noise");
  await form.getByRole("button", { name: "Add mute rule" }).click();
  const rule = page.getByTestId("mute-rule-row").filter({ hasText: agent });
  await expect(rule.getByTestId("mute-rule-state")).toHaveText("active");
  await expect(rule).toContainText("staging noise");

  await ingest503(agent, 2);
  expect(await statuses(agent)).toEqual(["snoozed", "snoozed"]);
  await page.reload();
  await expect(rule.getByTestId("mute-rule-counts")).toHaveText("muted 2 · 2 still snoozed");
  await snapshot(page, "settings-mute-rules");

  await rule.getByRole("button", { name: /^Remove mute rule/ }).click();
  await page.getByRole("dialog", { name: "Remove this mute rule?" }).getByRole("button", { name: "Remove rule" }).click();
  await expect(rule).toHaveCount(0);
  expect(await statuses(agent)).toEqual(["open", "open"]);
});
