import { expect, test, type Locator, type Page } from "@playwright/test";
import { failOnPageProblems, signIn, snapshot } from "./fixtures";

const SEVERITIES = ["critical", "high", "medium", "low"] as const;
const XSS_AGENT = `agent<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>`;

type Session = {
  session_id: string;
  agent_name: string | null;
  open_interruptions: { total: number; by_severity: Record<string, number>; types: { interruption_type: string; severity: string; count: number }[] };
};

failOnPageProblems();

async function listSessions(page: Page, query: Record<string, string>) {
  const res = await page.request.get(`/api/sessions?${new URLSearchParams(query)}`);
  expect(res.ok()).toBeTruthy();
  const link = res.headers()["link"] ?? null;
  const cursor = link ? new URL(/<([^>]+)>/.exec(link)![1], "http://x").searchParams.get("cursor") : null;
  return { sessions: (await res.json()) as Session[], cursor };
}

async function settled(page: Page) {
  await expect(page.getByTestId("sessions-list")).toHaveAttribute("data-ready", "true");
}

const row = (page: Page, id: string) => page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
const rowIds = (page: Page) => page.getByTestId("session-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-session-id")));

async function tooltipOf(page: Page, trigger: Locator) {
  const id = await trigger.getAttribute("aria-describedby");
  expect(id).toBeTruthy();
  return page.locator(`[id="${id}"]`);
}

test("sessions show one badge per non-zero severity with a per-type tooltip", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/sessions");
  await settled(page);
  const { sessions } = await listSessions(page, { limit: "50" });
  await expect(page.getByTestId("session-row")).toHaveCount(sessions.length);
  expect(await rowIds(page)).toEqual(sessions.map((s) => s.session_id));

  for (const s of sessions) {
    const r = row(page, s.session_id);
    await expect(r.getByTestId("session-link")).toHaveAttribute("href", `/sessions/${encodeURIComponent(s.session_id)}`);
    for (const sev of SEVERITIES) {
      const n = s.open_interruptions.by_severity[sev] ?? 0;
      const badge = r.getByTestId(`open-badge-${sev}`);
      if (n === 0) await expect(badge).toHaveCount(0);
      else await expect(badge.getByTestId(`severity-${sev}`)).toHaveText(new RegExp(`^${sev}\\s*${n}$`));
    }
  }

  // The badge with the most types behind it: hover and focus show each type and its count.
  const pairs = sessions.flatMap((s) => SEVERITIES.map((sev) => ({ s, sev, types: s.open_interruptions.types.filter((t) => t.severity === sev) })));
  const { s: busiest, sev, types: expected } = pairs.sort((a, b) => b.types.length - a.types.length)[0];
  expect(expected.length).toBeGreaterThan(1);
  const badge = row(page, busiest.session_id).getByTestId(`open-badge-${sev}`);
  const tooltip = await tooltipOf(page, badge);
  await expect(tooltip).toBeHidden();
  await badge.hover();
  await expect(tooltip).toBeVisible();
  await expect(tooltip).toHaveAttribute("role", "tooltip");
  await expect(tooltip.getByTestId("badge-tooltip-type")).toHaveCount(expected.length);
  for (const t of expected) {
    await expect(tooltip.locator(`[data-testid="badge-tooltip-type"][data-type="${t.interruption_type}"]`)).toHaveText(new RegExp(`^${t.interruption_type}\\s*×${t.count}$`));
  }
  await snapshot(page, "sessions");
  await page.mouse.move(0, 0);
  await expect(tooltip).toBeHidden();

  // Keyboard: focus shows it, Escape hides it.
  await badge.focus();
  await expect(tooltip).toBeVisible();
  await expect(tooltip).toContainText(expected[0].interruption_type);
  await page.keyboard.press("Escape");
  await expect(tooltip).toBeHidden();
});

test("filter by agent and by open interruptions, kept in the URL", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/sessions");
  await settled(page);

  await page.getByTestId("agent-filter").selectOption("research-bot");
  await expect(page).toHaveURL(/[?&]agent_name=research-bot\b/);
  await settled(page);
  const bot = await listSessions(page, { agent_name: "research-bot", limit: "50" });
  expect(bot.sessions.length).toBeGreaterThan(0);
  await expect(page.getByTestId("session-row")).toHaveCount(bot.sessions.length);
  for (const cell of await page.getByTestId("session-agent").all()) await expect(cell).toHaveText("research-bot");

  await page.getByTestId("with-open-filter").check();
  await expect(page).toHaveURL(/[?&]with_open=true\b/);
  await expect(page).toHaveURL(/[?&]agent_name=research-bot\b/);
  await settled(page);
  const botOpen = await listSessions(page, { agent_name: "research-bot", with_open: "true", limit: "50" });
  expect(await rowIds(page)).toEqual(botOpen.sessions.map((s) => s.session_id));

  await page.getByTestId("agent-filter").selectOption("");
  await expect(page).not.toHaveURL(/agent_name=/);
  await settled(page);
  const open = await listSessions(page, { with_open: "true", limit: "50" });
  const all = await listSessions(page, { limit: "50" });
  expect(open.sessions.length).toBeLessThan(all.sessions.length);
  expect(await rowIds(page)).toEqual(open.sessions.map((s) => s.session_id));
  for (const r of await page.getByTestId("session-row").all()) await expect(r.getByTestId("open-badges")).toBeVisible();

  // A copied link reopens the same view.
  await page.goto("/sessions?agent_name=CoshNG&with_open=true");
  await settled(page);
  await expect(page.getByTestId("agent-filter")).toHaveValue("CoshNG");
  await expect(page.getByTestId("with-open-filter")).toBeChecked();
  const cosh = await listSessions(page, { agent_name: "CoshNG", with_open: "true", limit: "50" });
  expect(await rowIds(page)).toEqual(cosh.sessions.map((s) => s.session_id));

  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(page).toHaveURL(/\/sessions$/);
  await settled(page);
  await expect(page.getByTestId("session-row")).toHaveCount(all.sessions.length);
});

test("pages follow the Link header, and rows open the session", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/sessions?limit=5");
  await settled(page);
  const first = await listSessions(page, { limit: "5" });
  expect(first.cursor).toBeTruthy();
  expect(await rowIds(page)).toEqual(first.sessions.map((s) => s.session_id));
  await expect(page.getByTestId("sessions-range")).toHaveText("Sessions 1–5");
  await expect(page.getByRole("button", { name: "← Previous" })).toBeDisabled();

  await page.getByTestId("sessions-next").click();
  await expect(page).toHaveURL(/[?&]cursor=/);
  await settled(page);
  const second = await listSessions(page, { limit: "5", cursor: first.cursor! });
  expect(await rowIds(page)).toEqual(second.sessions.map((s) => s.session_id));
  await expect(page.getByTestId("sessions-range")).toHaveText("Sessions 6–10");

  // To the last page: Next turns off where the API sends no Link. (How many pages there are
  // depends on what other specs ingested into the shared server.)
  const pages = [first.sessions, second.sessions].map((list) => list.map((s) => s.session_id));
  let cursor = second.cursor;
  while (cursor) {
    await page.getByTestId("sessions-next").click();
    await settled(page);
    const next = await listSessions(page, { limit: "5", cursor });
    expect(await rowIds(page)).toEqual(next.sessions.map((s) => s.session_id));
    pages.push(next.sessions.map((s) => s.session_id));
    cursor = next.cursor;
  }
  await expect(page.getByTestId("sessions-next")).toBeDisabled();

  // The browser's back button returns to the page before; "Previous" goes one further back.
  const range = (i: number) => `Sessions ${i * 5 + 1}–${i * 5 + pages[i].length}`;
  const last = pages.length - 1;
  await page.goBack();
  await settled(page);
  expect(await rowIds(page)).toEqual(pages[last - 1]);
  await expect(page.getByTestId("sessions-range")).toHaveText(range(last - 1));
  await page.getByRole("button", { name: "← Previous" }).click();
  await settled(page);
  expect(await rowIds(page)).toEqual(pages[last - 2]);
  await expect(page.getByTestId("sessions-range")).toHaveText(range(last - 2));
  if (last - 2 === 0) await expect(page).not.toHaveURL(/cursor=/);
  else await page.goto("/sessions?limit=5");
  await settled(page);

  // The whole row opens the session's trajectory.
  const id = first.sessions[1].session_id;
  await row(page, id).locator("td").nth(5).click();
  await expect(page).toHaveURL(`/sessions/${encodeURIComponent(id)}`);
});

test("an agent name with markup renders as text in the list and the filter", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/sessions");
  await settled(page);
  const probe = row(page, "e2e-xss-session");
  await expect(probe.getByTestId("session-agent")).toHaveText(XSS_AGENT);
  await expect(page.locator('img[src="x"]')).toHaveCount(0);

  await page.getByTestId("agent-filter").selectOption(XSS_AGENT);
  await settled(page);
  await expect(page.getByTestId("session-row")).toHaveCount(1);
  await expect(page.getByTestId("session-agent")).toHaveText(XSS_AGENT);
  await expect.poll(() => new URL(page.url()).searchParams.get("agent_name")).toBe(XSS_AGENT); // the URL may follow the rows
  await page.reload();
  await settled(page);
  await expect(page.getByTestId("session-row")).toHaveCount(1);
  expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
});
