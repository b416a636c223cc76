import { expect, test, type Page } from "@playwright/test";
import { failOnPageProblems, signIn, snapshot } from "./fixtures";

const SEVERITIES = ["critical", "high", "medium", "low"] as const;
type Counts = { total: number; by_severity: Record<(typeof SEVERITIES)[number], number> };

failOnPageProblems();

// The overview counts what needs someone now: open and acknowledged (snoozed ones are set aside).
const ACTIVE = "status=open,acknowledged";

/** Waits until every panel shows the data of the current window, and returns that window. */
async function settledWindow(page: Page) {
  const overview = page.getByTestId("overview");
  await expect(overview).toHaveAttribute("data-ready", "true");
  const start = await overview.getAttribute("data-start-ns");
  const end = await overview.getAttribute("data-end-ns");
  expect(start).toMatch(/^\d+$/);
  expect(end).toMatch(/^\d+$/);
  return { start: start!, end: end!, qs: `start_ns=${start}&end_ns=${end}&${ACTIVE}` };
}

async function getJson<T>(page: Page, path: string): Promise<T> {
  const res = await page.request.get(path);
  expect(res.ok(), `${path}: ${res.status()}`).toBeTruthy();
  return (await res.json()) as T;
}

async function expectCardsMatch(page: Page, qs: string) {
  const counts = await getJson<Counts>(page, `/api/interruptions/count?${qs}`);
  await expect(page.getByTestId("overview-count-total").getByTestId("count-value")).toHaveText(String(counts.total));
  for (const s of SEVERITIES) {
    await expect(page.getByTestId(`overview-count-${s}`).getByTestId("count-value")).toHaveText(String(counts.by_severity[s]));
  }
  return counts;
}

test("the overview's severity counts match the API and open the inbox", async ({ page }) => {
  await signIn(page, "responder");
  await page.goto("/");
  const w = await settledWindow(page);
  const counts = await expectCardsMatch(page, w.qs);
  expect(counts.total).toBeGreaterThan(0);
  // The default window is the API's default: the last 24 hours.
  expect(BigInt(w.end) - BigInt(w.start)).toBe(24n * 3_600_000_000_000n);
  const byDefault = await getJson<Counts>(page, `/api/interruptions/count?${ACTIVE}`);
  expect(byDefault).toEqual(counts);

  for (const s of SEVERITIES) await expect(page.getByTestId(`overview-count-${s}`)).toHaveAttribute("href", `/inbox?severity=${s}`);
  await expect(page.getByTestId("overview-count-total")).toHaveAttribute("href", "/inbox");
  // Severity is written out, not only coloured.
  for (const s of SEVERITIES) await expect(page.getByTestId(`overview-count-${s}`)).toContainText(s);
});

test("the stacked chart renders bars and a severity legend that match the time series", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/");
  const w = await settledWindow(page);
  const chart = page.getByTestId("overview-chart");
  await expect(chart.locator("svg.recharts-surface")).toHaveCount(1);
  await expect.poll(() => chart.locator("svg .recharts-bar-rectangle path, svg path.recharts-rectangle").count()).toBeGreaterThan(0);

  // The chart's buckets sit on round times: the whole hours around the last 24 hours.
  const [start, end, buckets] = await Promise.all(["data-start-ns", "data-end-ns", "data-buckets"].map((a) => chart.getAttribute(a)));
  expect(BigInt(end!) + 1n - BigInt(start!)).toBe(25n * 3_600_000_000_000n);
  expect((BigInt(end!) + 1n) % 60_000_000_000n).toBe(0n);
  expect(BigInt(end!)).toBeGreaterThanOrEqual(BigInt(w.end));
  expect(BigInt(start!)).toBeLessThanOrEqual(BigInt(w.start));
  const series = await getJson<{ bucket_ns: number; buckets: { counts: Record<string, number> }[] }>(
    page,
    `/api/interruptions/timeseries?start_ns=${start}&end_ns=${end}&buckets=${buckets}&group_by=severity`,
  );
  expect(series.bucket_ns).toBe(3_600_000_000_000);
  await expect(chart.locator("svg .recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value").first()).toHaveText(/^\d\d:00$/);
  const legend = page.getByTestId("chart-legend");
  for (const s of SEVERITIES) {
    const total = series.buckets.reduce((n, b) => n + (b.counts[s] ?? 0), 0);
    const item = legend.locator(`a[data-severity="${s}"]`);
    await expect(item).toContainText(s);
    await expect(item).toContainText(String(total));
    await expect(item).toHaveAttribute("href", `/inbox?severity=${s}`);
  }
  // Each stacked series is drawn in its severity's colour.
  await expect(chart.locator('svg path[fill="#b91c1c"]').first()).toBeVisible();
});

test("a bar of the chart opens the inbox on what it shows: its severity in its hour, every status", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/");
  await settledWindow(page);
  const chart = page.getByTestId("overview-chart");
  const [start, end, buckets] = await Promise.all(["data-start-ns", "data-end-ns", "data-buckets"].map((a) => chart.getAttribute(a)));
  const series = await getJson<{ bucket_ns: number; buckets: { start_ns: number; counts: Record<string, number> }[] }>(
    page,
    `/api/interruptions/timeseries?start_ns=${start}&end_ns=${end}&buckets=${buckets}&group_by=severity`,
  );
  const critical = chart.locator('svg path[fill="#b91c1c"]');
  await expect(critical.first()).toBeVisible();
  await critical.last().click();
  await expect(page).toHaveURL(/\/inbox\?/);
  const url = new URL(page.url());
  expect(Object.fromEntries(["severity", "range", "unresolved"].map((k) => [k, url.searchParams.get(k)]))).toEqual({ severity: "critical", range: "custom", unresolved: "false" });
  const [from, to] = [Date.parse(url.searchParams.get("from")!), Date.parse(url.searchParams.get("to")!)];
  expect(to - from).toBe(series.bucket_ns / 1_000_000);
  // the bar's count is what the inbox's filter matches (before, it opened every unresolved critical of the day)
  const bucket = series.buckets.find((b) => Number(BigInt(b.start_ns) / 1_000_000n) === from)!;
  const listed = await getJson<unknown[]>(page, `/api/interruptions?severity=critical&start_ns=${BigInt(from) * 1_000_000n}&end_ns=${BigInt(to) * 1_000_000n - 1n}&limit=5000`);
  expect(listed.length).toBe(bucket.counts.critical);
});

test("top types, agents and sessions are listed and link to their filters", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/");
  const w = await settledWindow(page);

  // Top types: folded from /stats, the largest first.
  const stats = await getJson<{ interruption_type: string; count: number }[]>(page, `/api/interruptions/stats?${w.qs}`);
  const perType = new Map<string, number>();
  for (const s of stats) perType.set(s.interruption_type, (perType.get(s.interruption_type) ?? 0) + s.count);
  const types = page.getByTestId("top-types-list-item");
  await expect(types).toHaveCount(Math.min(8, perType.size));
  const maxType = Math.max(...perType.values());
  await expect(types.first().getByTestId("ranked-count")).toHaveText(String(maxType));
  for (const item of await types.all()) {
    const type = (await item.getByTestId("ranked-label").textContent())!.trim();
    await expect(item.getByTestId("ranked-count")).toHaveText(String(perType.get(type)));
    await expect(item).toHaveAttribute("href", `/inbox?interruption_type=${type}`);
  }
  await page.getByTestId("top-types").getByRole("button", { name: /Show all \d+ types/ }).click();
  await expect(types).toHaveCount(perType.size);
  await page.getByTestId("top-types").getByRole("button", { name: "Show fewer" }).click();
  await expect(types).toHaveCount(Math.min(8, perType.size));

  // Top agents: each count is the API's unresolved count for that agent in the same window.
  const agents = page.getByTestId("top-agents-list-item");
  await expect(agents.first()).toBeVisible();
  expect(await agents.count()).toBeGreaterThanOrEqual(4);
  let previous = Infinity;
  for (const item of await agents.all()) {
    const name = (await item.getByTestId("ranked-label").textContent())!;
    const shown = Number(await item.getByTestId("ranked-count").textContent());
    const api = await getJson<Counts>(page, `/api/interruptions/count?${w.qs}&agent_name=${encodeURIComponent(name)}`);
    expect(shown, name).toBe(api.total);
    expect(shown).toBeLessThanOrEqual(previous);
    previous = shown;
    expect(await item.getAttribute("href")).toBe(`/inbox?${new URLSearchParams({ agent_name: name })}`);
  }
  await expect(page.getByTestId("top-agents")).toContainText("CoshNG");

  // Most affected sessions: the first of /session-counts (the overview asks for its top 25), linking to the trajectory.
  const sessionCounts = await getJson<{ session_id: string; total: number }[]>(page, `/api/interruptions/session-counts?${w.qs}`);
  const real = sessionCounts.filter((s) => s.session_id !== "__unassigned__").sort((a, b) => b.total - a.total);
  const sessions = page.getByTestId("top-sessions-list-item");
  await expect(sessions).toHaveCount(Math.min(8, real.length));
  await expect(sessions.first()).toHaveAttribute("href", `/sessions/${encodeURIComponent(real[0].session_id)}`);
  await expect(sessions.first().getByTestId("ranked-count")).toHaveText(String(real[0].total));
  await expect(sessions.first().getByTestId("ranked-label")).not.toHaveText(/unknown agent|…/);

  await snapshot(page, "overview");
});

test("the time range lives in the URL and changes the data", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/");
  const day = await settledWindow(page);
  const dayCounts = await getJson<Counts>(page, `/api/interruptions/count?${day.qs}`);
  await expect(page.getByRole("radio", { name: "24 h" })).toHaveAttribute("aria-checked", "true");

  await page.getByRole("radio", { name: "1 h" }).click();
  await expect(page).toHaveURL(/[?&]range=1h\b/);
  await expect(page.getByTestId("overview")).toHaveAttribute("data-range", "1h");
  const hour = await settledWindow(page);
  expect(BigInt(hour.end) - BigInt(hour.start)).toBe(3_600_000_000_000n);
  const hourCounts = await expectCardsMatch(page, hour.qs);
  // The demo spreads interruptions over the last ~3 hours: the last hour holds fewer.
  expect(hourCounts.total).toBeLessThan(dayCounts.total);
  await expect(page.getByTestId("overview-count-critical")).toHaveAttribute("href", "/inbox?severity=critical&range=1h");
  await expect(page.getByTestId("overview-chart")).toContainText("Per 5 min");

  await page.getByRole("radio", { name: "7 d" }).click();
  await expect(page).toHaveURL(/[?&]range=7d\b/);
  const week = await settledWindow(page);
  expect(BigInt(week.end) - BigInt(week.start)).toBe(7n * 24n * 3_600_000_000_000n);
  await expectCardsMatch(page, week.qs);

  // A copied link reopens the same range; the browser's back button returns to the previous one.
  await page.goto("/?range=1h");
  await expect(page.getByRole("radio", { name: "1 h" })).toHaveAttribute("aria-checked", "true");
  await expectCardsMatch(page, (await settledWindow(page)).qs);
  await page.getByRole("radio", { name: "24 h" }).click();
  await expect(page).not.toHaveURL(/range=/);
  await page.goBack();
  await expect(page).toHaveURL(/[?&]range=1h\b/);
  await expect(page.getByRole("radio", { name: "1 h" })).toHaveAttribute("aria-checked", "true");
});

test("an agent name with markup renders as text on the overview", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/");
  await settledWindow(page);
  const probe = page.getByTestId("top-agents-list-item").filter({ hasText: "<script>" });
  await expect(probe).toHaveCount(1);
  await expect(probe.getByTestId("ranked-label")).toHaveText(`agent<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>`);
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
});
