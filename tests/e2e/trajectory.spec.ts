import { expect, test, type Page } from "@playwright/test";
import { dashboardApi, signIn, snapshot } from "./fixtures";

type Rec = { interruption_id: string; session_id: string; call_id: string | null; conversation_id: string | null; detail: string };
type CallSummary = { call_id: string; conversation_id: string | null; interruptions: { interruption_id: string }[] };

const XSS = `<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>`;

const row = (page: Page, callId: string) => page.locator(`[data-testid="call-row"][data-call-id="${callId}"]`);

const atBottom = (page: Page) => page.evaluate(() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2);

/**
 * Every call row of the (virtualized) list in display order, by scrolling through the page:
 * only the rows near the viewport are in the DOM at any time.
 */
async function allRows(page: Page): Promise<{ id: string; marked: boolean; index: number }[]> {
  await page.evaluate(() => window.scrollTo(0, 0));
  const seen = new Map<string, { id: string; marked: boolean; index: number }>();
  for (let i = 0; i < 300; i++) {
    const batch = await page.locator('[data-testid="call-row"]').evaluateAll((els) =>
      els.map((e) => ({ id: e.getAttribute("data-call-id")!, marked: e.getAttribute("data-marked") === "true", index: Number(e.parentElement!.getAttribute("data-index")) })),
    );
    for (const r of batch) seen.set(r.id, r);
    if (await atBottom(page)) break;
    await page.evaluate(() => window.scrollBy(0, Math.round(window.innerHeight * 0.7)));
    await page.waitForTimeout(60);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  return [...seen.values()].sort((a, b) => a.index - b.index);
}

/** Scrolls down until a call's row is rendered, then brings it into view. */
async function scrollToRow(page: Page, callId: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  for (let i = 0; i < 300 && (await row(page, callId).count()) === 0 && !(await atBottom(page)); i++) {
    await page.evaluate(() => window.scrollBy(0, Math.round(window.innerHeight * 0.7)));
    await page.waitForTimeout(60);
  }
  await row(page, callId).scrollIntoViewIfNeeded();
  return row(page, callId);
}

/** The call that bricked the research-bot conversation: the unbalanced state_machine_error without a root. */
async function brickingError(page: Page): Promise<Rec & { dangling: string }> {
  const res = await page.request.get(`/api/interruptions?interruption_type=state_machine_error&start_ns=0&limit=200`);
  const list = (await res.json()) as Rec[];
  const root = list.find((r) => {
    const d = JSON.parse(r.detail) as Record<string, unknown>;
    return d.rule === "unbalanced_tool_calls" && !d.bricked_since_call_id;
  });
  expect(root, "the demo has a bricked conversation").toBeTruthy();
  return { ...root!, dangling: (JSON.parse(root!.detail) as { dangling: string[] }).dangling[0] };
}

test.describe("session trajectory", () => {
  test("puts the interruption marker on the exact call and shows the dangling tool id", async ({ page }) => {
    await signIn(page, "viewer");
    const root = await brickingError(page);
    await page.goto(`/sessions/${root.session_id}`);
    await expect(page.getByTestId("calls-loaded")).not.toContainText("loading");
    const target = await scrollToRow(page, root.call_id!);
    const marker = page.locator(`[data-testid="interruption-marker"][data-interruption-id="${root.interruption_id}"]`);
    await expect(marker).toHaveCount(1);
    await expect(target.locator(`[data-testid="interruption-marker"][data-interruption-id="${root.interruption_id}"]`)).toBeVisible();
    await expect(marker).toContainText("state_machine_error");
    await expect(marker).toContainText("high");
    // Its row names the dangling tool call; the conversation header names the bricking call.
    await expect(target.getByTestId("row-unbalanced")).toContainText(root.dangling);
    await expect(page.locator(`[data-testid="conversation-row"][data-conversation-id="${root.conversation_id}"]`).getByTestId("bricked-since")).toContainText(root.call_id!.slice(0, 12));

    // Every call of the API is in the list, the API's marked calls are marked, and nothing else.
    const calls = (await (await page.request.get(`/api/sessions/${root.session_id}/calls?limit=5000`)).json()) as CallSummary[];
    const rows = await allRows(page);
    expect(rows.map((r) => r.id).sort()).toEqual(calls.map((c) => c.call_id).sort());
    const apiMarked = calls.filter((c) => c.interruptions.length).map((c) => c.call_id).sort();
    expect(rows.filter((r) => r.marked).map((r) => r.id).sort()).toEqual(apiMarked);
  });

  test("?call= opens the call: messages, paired tool calls, balance and the dangling call", async ({ page }) => {
    await signIn(page, "viewer");
    const root = await brickingError(page);
    await page.goto(`/sessions/${root.session_id}?call=${root.call_id}`);
    const r = row(page, root.call_id!);
    await expect(r).toHaveAttribute("data-expanded", "true");
    await expect(r).toHaveAttribute("data-highlighted", "true");
    await expect(r).toBeInViewport();
    const messages = r.getByTestId("call-messages");
    await expect(messages.getByTestId("balance-strip")).toBeVisible();
    await expect(messages.getByTestId("balance-issues")).toContainText(root.dangling);
    await expect(messages.locator(`[data-testid="tool-call"][data-tool-call-id="${root.dangling}"]`)).toContainText("dangling");
    await expect(messages.locator('[data-testid="message"][data-role="user"]').first()).toBeVisible();
    // Turn-end chips are there (the bricked turn ends failed).
    await expect(page.locator('[data-testid="turn-end"][data-reason="failed"]').first()).toBeVisible();
    // A tall window renders every row of this short session, for the screenshot.
    await page.setViewportSize({ width: 1280, height: 2600 });
    await page.evaluate(() => window.scrollTo(0, 0));
    const session = (await (await page.request.get(`/api/sessions/${root.session_id}`)).json()) as { call_count: number };
    await expect(page.getByTestId("call-row")).toHaveCount(session.call_count);
    await snapshot(page, "trajectory");
  });

  test("paired tool calls show their response and safe cut points", async ({ page }) => {
    await signIn(page, "viewer");
    // A tool_failure call: its tool call and failed response are in the history of a later call.
    const res = await page.request.get(`/api/interruptions?interruption_type=tool_failure&start_ns=0&limit=200`);
    const r = ((await res.json()) as Rec[]).find((x) => (JSON.parse(x.detail) as { tool_call_id?: string }).tool_call_id && x.call_id)!;
    const toolCallId = (JSON.parse(r.detail) as { tool_call_id: string }).tool_call_id;
    const calls = (await (await page.request.get(`/api/sessions/${r.session_id}/calls?limit=5000&conversation_id=${r.conversation_id}`)).json()) as CallSummary[];
    // The call after the one that made the tool call carries the response in its input.
    const idx = calls.findIndex((c) => c.call_id === r.call_id);
    const next = calls[idx + 1] ?? calls[idx];
    await page.goto(`/sessions/${r.session_id}?call=${next.call_id}`);
    const messages = row(page, next.call_id).getByTestId("call-messages");
    await expect(messages).toBeVisible();
    const card = messages.locator(`[data-testid="tool-call"][data-tool-call-id="${toolCallId}"]`);
    await expect(card).toBeVisible();
    await expect(card.getByTestId("tool-response")).toBeVisible();
    await expect(messages.getByTestId("safe-cut").first()).toBeVisible();
  });

  test("next interruption moves to the next marked call, in order", async ({ page }) => {
    await signIn(page, "viewer");
    const root = await brickingError(page);
    await page.goto(`/sessions/${root.session_id}`);
    await expect(page.getByTestId("calls-loaded")).not.toContainText("loading");
    const marked = (await allRows(page)).filter((r) => r.marked).map((r) => r.id);
    expect(marked.length).toBeGreaterThan(1);
    const next = page.getByTestId("next-interruption");
    for (let i = 0; i < Math.min(3, marked.length); i++) {
      await next.click();
      await expect(page.locator('[data-testid="call-row"][data-highlighted="true"]')).toHaveAttribute("data-call-id", marked[i]);
      await expect(row(page, marked[i])).toBeInViewport();
      await expect(page.getByTestId("marker-position")).toHaveText(`${i + 1} of ${marked.length} marked calls`);
      await expect(page).toHaveURL(new RegExp(`call=${marked[i]}`));
    }
    await page.getByTestId("prev-interruption").click();
    await expect(page.locator('[data-testid="call-row"][data-highlighted="true"]')).toHaveAttribute("data-call-id", marked[Math.min(3, marked.length) - 2]);
  });

  test("the conversation link shows only that conversation", async ({ page }) => {
    await signIn(page, "viewer");
    const root = await brickingError(page);
    await page.goto(`/sessions/${root.session_id}?conversation=${root.conversation_id}`);
    await expect(page.getByTestId("conversation-filter")).toBeVisible();
    const convs = page.getByTestId("conversation-row");
    await expect(convs).toHaveCount(1);
    await expect(convs).toHaveAttribute("data-conversation-id", root.conversation_id!);
    await expect(row(page, root.call_id!)).toBeVisible();
  });

  test("the XSS probe's agent name, message and error render literally", async ({ page }) => {
    await signIn(page, "viewer");
    await page.goto(`/sessions/e2e-xss-session?call=e2e-xss-call`);
    await expect(page.getByTestId("session-agent")).toHaveText(`agent${XSS}`);
    const messages = row(page, "e2e-xss-call").getByTestId("call-messages");
    await expect(messages.getByTestId("call-error")).toHaveText(`upstream said ${XSS}`);
    await expect(messages.locator('[data-testid="message"][data-role="assistant"] [data-testid="part-text"]')).toHaveText(XSS);
    await expect(messages.locator('[data-testid="message"][data-role="user"] [data-testid="part-text"]')).toHaveText(`please echo ${XSS}`);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
  });
});

test.describe("a 2,000-call session", () => {
  const SESSION = "e2e-big-session";
  const N = 2000;

  test.beforeAll(async () => {
    // Ingest needs a token with the `ingest` scope: the e2e server's dashboard token file.
    const api = await dashboardApi();
    // Three days ago: outside the default 24 h windows of the inbox and overview that other
    // specs may count on the same server.
    const base = BigInt(Date.now() - 72 * 3600_000) * 1_000_000n;
    const calls = Array.from({ length: N }, (_, i) => {
      const start = base + BigInt(i) * 5_000_000_000n;
      const failed = i % 250 === 137;
      return {
        call_id: `big-${String(i).padStart(4, "0")}`,
        session_id: SESSION,
        conversation_id: `big-conv-${Math.floor(i / 1000)}`,
        turn_id: `big-turn-${Math.floor(i / 25)}`,
        agent_name: "big-agent",
        model: "gpt-4o-mini",
        start_ns: String(start),
        end_ns: String(start + BigInt(500 + (i % 7) * 400) * 1_000_000n),
        status_code: failed ? 500 : 200,
        ...(failed ? { error: "Internal server error" } : {}),
        input_tokens: 100 + i,
        output_tokens: 20,
        finish_reasons: failed ? [] : ["stop"],
        input_messages: [{ role: "user", parts: [{ type: "text", content: `step ${i}` }] }],
        output_messages: failed ? [] : [{ role: "assistant", parts: [{ type: "text", content: `done ${i}` }] }],
      };
    });
    for (let i = 0; i < N; i += 500) {
      const res = await api.post("/api/ingest/calls", { data: calls.slice(i, i + 500), timeout: 60_000 });
      expect(res.ok(), await res.text()).toBeTruthy();
    }
    await api.dispose();
  });

  test("renders only the visible rows and scrolls to the last call", async ({ page }) => {
    test.setTimeout(90_000);
    await signIn(page, "viewer");
    await page.goto(`/sessions/${SESSION}`);
    await expect(page.getByTestId("calls-loaded")).toHaveText(`${N.toLocaleString("en-US")} calls`, { timeout: 30_000 });
    await expect(page.getByTestId("timeline")).toBeVisible();
    const rows = page.getByTestId("call-row");
    await expect(rows.first()).toBeVisible();
    const inDom = await rows.count();
    expect(inDom).toBeGreaterThan(5);
    expect(inDom).toBeLessThan(150);

    const last = row(page, `big-${N - 1}`);
    const started = Date.now();
    for (let i = 0; i < 20 && !(await last.isVisible()); i++) {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.waitForTimeout(150);
    }
    await expect(last).toBeInViewport();
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await rows.count()).toBeLessThan(150);

    // "Next interruption" (nothing highlighted yet) goes to the first failed call, index 137.
    await page.getByTestId("next-interruption").click();
    await expect(page.locator('[data-testid="call-row"][data-highlighted="true"]')).toHaveAttribute("data-call-id", "big-0137");
    await expect(row(page, "big-0137")).toBeInViewport();
  });
});

test("a turn that ended before its first call shows in its conversation, with how it ended", async ({ page }) => {
  const api = await dashboardApi();
  const session = `callless-${Date.now().toString(36)}`;
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  const call = {
    call_id: `${session}-call`, session_id: session, conversation_id: `${session}-conv`, turn_id: `${session}-t1`, agent_name: "callless-agent",
    start_ns: String(start), end_ns: String(start + 1_000_000_000n), status_code: 200,
    input_messages: [{ role: "user", parts: [{ type: "text", content: "go" }] }], output_messages: [],
  };
  expect((await api.post("/api/ingest/calls", { data: [call] })).ok()).toBeTruthy();
  const ended = { kind: "turn_end", session_id: session, conversation_id: `${session}-conv`, turn_id: `${session}-t-failed`, reason: "failed", at_ns: String(start + 5_000_000_000n) };
  const res = await api.post("/api/ingest/events", { data: [ended] });
  expect(res.ok(), await res.text()).toBeTruthy();
  await api.dispose();

  await signIn(page, "viewer");
  await page.goto(`/sessions/${session}`);
  const turn = page.locator(`[data-testid="turn-row"][data-turn-id="${session}-t-failed"]`);
  await expect(turn).toBeVisible();
  await expect(turn).toContainText("0 calls");
  await expect(turn).toContainText("failed");
});
