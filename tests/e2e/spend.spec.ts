// Wasted spend (issue 15, part 4) in the browser: the overview's Spend panel shows what the API
// computes for its window (per agent, wasted included, unknown prices named), an interruption
// shows what it cost (its call, or the calls of a dead loop), a session header shows its cost.
import { expect, test, type Page } from "@playwright/test";
import { formatUsd } from "../../components/ui/money";
import { signIn, snapshot } from "./fixtures";

type AgentSpend = { agent_name: string | null; calls: number; priced_calls: number; cost_usd: number; wasted_calls: number; wasted_usd: number; wasted_unpriced_calls: number; unpriced_models: string[] };
type Spend = { total: { cost_usd: number; wasted_usd: number; unpriced_calls: number }; agents: AgentSpend[] };
type Cost = { basis: string; calls: number; priced_calls: number; cost_usd: number };
type Rec = { interruption_id: string; session_id: string | null; interruption_type: string };

async function getJson<T>(page: Page, path: string): Promise<T> {
  const res = await page.request.get(path);
  expect(res.ok(), `${path}: ${res.status()}`).toBeTruthy();
  return (await res.json()) as T;
}

test("the overview's Spend panel shows each agent's spend and wasted spend for its window", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/?range=7d");
  const overview = page.getByTestId("overview");
  await expect(overview).toHaveAttribute("data-ready", "true");
  const panel = page.getByTestId("spend-panel");
  await expect(panel).toHaveAttribute("data-ready", "true");
  const start = await overview.getAttribute("data-start-ns");
  const end = await overview.getAttribute("data-end-ns");
  const spend = await getJson<Spend>(page, `/api/spend?start_ns=${start}&end_ns=${end}`);
  expect(spend.total.cost_usd).toBeGreaterThan(0);
  expect(spend.total.wasted_usd).toBeGreaterThan(0);

  await expect(panel.getByTestId("spend-total")).toHaveText(formatUsd(spend.total.cost_usd));
  await expect(panel.getByTestId("spend-wasted")).toHaveText(formatUsd(spend.total.wasted_usd));
  await expect(panel.getByTestId("spend-agent")).toHaveCount(spend.agents.length);
  for (const a of spend.agents) {
    const row = panel.locator(`[data-testid="spend-agent"][data-agent="${(a.agent_name ?? "(no agent name)").replace(/"/g, '\\"')}"]`);
    if (a.priced_calls === 0) await expect(row.getByTestId("agent-spend")).toHaveText("unknown price");
    else await expect(row.getByTestId("agent-spend")).toContainText(formatUsd(a.cost_usd));
    if (a.wasted_calls === 0) await expect(row.getByTestId("agent-wasted")).toHaveText("—");
    else if (a.wasted_unpriced_calls === a.wasted_calls) await expect(row.getByTestId("agent-wasted")).toContainText("unknown price");
    else await expect(row.getByTestId("agent-wasted")).toContainText(formatUsd(a.wasted_usd));
  }
  // The seeded call without a model has no price: named, not guessed; its agent name stays text.
  expect(spend.total.unpriced_calls).toBeGreaterThan(0);
  await expect(panel.getByTestId("spend-unpriced")).toContainText("Unknown price");
  await expect(panel.getByTestId("spend-unpriced")).toContainText("(no model)");
  expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
  await snapshot(page, "overview-spend");
});

test("an interruption shows what it cost, and a session header its cost", async ({ page }) => {
  await signIn(page, "viewer");
  const [loop] = await getJson<Rec[]>(page, "/api/interruptions?interruption_type=dead_loop&start_ns=0&limit=1");
  expect(loop, "the demo has a dead loop").toBeTruthy();
  const loopCost = await getJson<Cost>(page, `/api/spend/interruptions/${loop.interruption_id}`);
  expect(loopCost.basis).toBe("dead_loop");
  expect(loopCost.calls).toBeGreaterThan(1);
  await page.goto(`/interruptions/${loop.interruption_id}`);
  const line = page.getByTestId("interruption-cost");
  await expect(line).toHaveAttribute("data-basis", "dead_loop");
  await expect(line).toContainText(`Cost of the ${loopCost.calls} calls of the loop`);
  await expect(page.getByTestId("interruption-cost-value")).toHaveText(formatUsd(loopCost.cost_usd));

  const [failed] = await getJson<Rec[]>(page, "/api/interruptions?interruption_type=rate_limit&start_ns=0&limit=1");
  const failedCost = await getJson<Cost>(page, `/api/spend/interruptions/${failed.interruption_id}`);
  expect(failedCost).toMatchObject({ basis: "call", calls: 1 });
  await page.goto(`/interruptions/${failed.interruption_id}`);
  await expect(page.getByTestId("interruption-cost")).toContainText("Cost of the call");
  await expect(page.getByTestId("interruption-cost-value")).toHaveText(formatUsd(failedCost.cost_usd));

  const session = await getJson<Cost>(page, `/api/spend/sessions/${loop.session_id}`);
  await page.goto(`/sessions/${loop.session_id}`);
  await expect(page.getByTestId("session-cost-total")).toHaveText(formatUsd(session.cost_usd));
  await snapshot(page, "session-cost");
});
