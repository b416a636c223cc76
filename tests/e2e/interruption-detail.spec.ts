import { expect, test, type Page } from "@playwright/test";
import { dashboardApi, holdFirstAnswer, signIn, snapshot } from "./fixtures";

type Rec = { interruption_id: string; session_id: string | null; call_id: string | null; conversation_id: string | null; detail: string; status: string; interruption_type: string; agent_name: string | null };

const XSS = `<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>`;

/** Interruptions of a type, through the API in the signed-in context (all of time). */
async function byType(page: Page, type: string, extra: Record<string, string> = {}): Promise<Rec[]> {
  const qs = new URLSearchParams({ interruption_type: type, start_ns: "0", limit: "200", ...extra });
  const res = await page.request.get(`/api/interruptions?${qs}`);
  expect(res.ok()).toBeTruthy();
  const list = (await res.json()) as Rec[];
  expect(list.length, `demo data has ${type}`).toBeGreaterThan(0);
  return list;
}

const detailOf = (r: Rec) => JSON.parse(r.detail) as Record<string, unknown>;

test.describe("interruption detail", () => {
  test("shows every field, links and the token_limit ratio", async ({ page }) => {
    await signIn(page, "viewer");
    const [r] = await byType(page, "token_limit");
    const d = detailOf(r);
    await page.goto(`/interruptions/${r.interruption_id}`);
    await expect(page.getByTestId("interruption-type")).toHaveText("token_limit");
    const ratio = page.getByTestId("token-ratio");
    await expect(ratio).toBeVisible();
    await expect(ratio).toContainText(`ratio ${Number(d.ratio).toFixed(3)}`);
    await expect(page.getByTestId("evidence")).toContainText(String(d.max_tokens));
    const fields = page.getByTestId("fields");
    for (const key of ["interruption_id", "session_id", "conversation_id", "call_id", "trace_id", "fingerprint", "occurrences", "resolved_by"]) await expect(fields).toContainText(key);
    await expect(fields).toContainText(r.interruption_id);
    await expect(page.getByTestId("link-session")).toHaveAttribute("href", `/sessions/${r.session_id}`);
    await expect(page.getByTestId("link-conversation")).toHaveAttribute("href", `/sessions/${r.session_id}?conversation=${r.conversation_id}`);
    await expect(page.getByTestId("link-call")).toHaveAttribute("href", `/sessions/${r.session_id}?call=${r.call_id}`);
    // The call's messages around it: the output is there.
    await expect(page.getByTestId("call-context").getByTestId("message").first()).toBeVisible();
    await expect(page.getByTestId("call-context").locator('[data-testid="message"][data-role="assistant"]').last()).toBeVisible();
  });

  test("shows the dead_loop rule and its repeated tool signature", async ({ page }) => {
    await signIn(page, "viewer");
    const loops = await byType(page, "dead_loop");
    const r = loops.find((x) => Array.isArray(detailOf(x).repeated_tools)) ?? loops[0];
    const d = detailOf(r);
    await page.goto(`/interruptions/${r.interruption_id}`);
    await expect(page.getByTestId("dead-loop-rule")).toHaveText(String(d.rule));
    const tools = (d.repeated_tools as string[]).map((s) => (s.lastIndexOf("#") > 0 ? s.slice(0, s.lastIndexOf("#")) : s));
    await expect(page.getByTestId("repeated-tool-name").first()).toHaveText(tools[0]);
    await expect(page.getByTestId("evidence")).toContainText(`repeated ${d.repeat_count} times`);
  });

  test("shows agent_crash exit code, signal and OOM", async ({ page }) => {
    await signIn(page, "viewer");
    const crashes = await byType(page, "agent_crash");
    const r = crashes.find((x) => detailOf(x).oom === true);
    expect(r, "the demo has an OOM crash").toBeTruthy();
    const d = detailOf(r!);
    await page.goto(`/interruptions/${r!.interruption_id}`);
    await expect(page.getByTestId("crash-oom")).toContainText("yes");
    await expect(page.getByTestId("crash-facts")).toContainText(String(d.exit_code));
    await expect(page.getByTestId("crash-facts")).toContainText(String(d.signal));
  });

  test("shows slow_response duration against its threshold", async ({ page }) => {
    await signIn(page, "viewer");
    const [r] = await byType(page, "slow_response");
    await page.goto(`/interruptions/${r.interruption_id}`);
    await expect(page.getByTestId("duration-bar")).toBeVisible();
    await expect(page.getByTestId("evidence")).toContainText("threshold");
  });

  test("shows dangling tool ids and the bricked-since call of a state machine error", async ({ page }) => {
    await signIn(page, "viewer");
    const list = await byType(page, "state_machine_error");
    const later = list.find((x) => detailOf(x).bricked_since_call_id);
    expect(later, "a 400 linked to the bricking call").toBeTruthy();
    const d = detailOf(later!);
    await page.goto(`/interruptions/${later!.interruption_id}`);
    const dangling = (d.dangling as string[])[0];
    await expect(page.getByTestId("dangling-ids")).toContainText(dangling);
    const link = page.getByTestId("bricked-since").getByRole("link");
    await expect(link).toHaveAttribute("href", `/sessions/${later!.session_id}?call=${d.bricked_since_call_id}`);
    // The dangling tool call is visible in the call's messages, marked as such.
    await expect(page.getByTestId("call-context").locator(`[data-testid="tool-call"][data-tool-call-id="${dangling}"]`)).toContainText("dangling");
    await snapshot(page, "interruption-detail");
  });

  test("a responder acknowledges, notes and resolves; the activity log shows it", async ({ page }) => {
    await signIn(page, "responder");
    const open = (await byType(page, "rate_limit", { status: "open" }))[0];
    await page.goto(`/interruptions/${open.interruption_id}`);
    const status = page.getByTestId("interruption-status");
    await expect(status).toHaveText("open");
    await page.getByRole("button", { name: "Acknowledge" }).click();
    await expect(status).toHaveText("acknowledged");
    const log = page.getByTestId("activity-log");
    await expect(log.locator('[data-action="acknowledge"]')).toContainText("responder@e2e.test");

    await page.getByRole("button", { name: "Assign to me" }).click();
    await expect(page.getByTestId("assignee")).toContainText("responder@e2e.test");
    await expect(log.locator('[data-action="assign"]')).toContainText("assigned to responder@e2e.test");

    await page.getByLabel("Note", { exact: true }).fill("Checked the provider status page: a regional incident.");
    await page.getByRole("button", { name: "Add note" }).click();
    await expect(log.locator('[data-action="note"]')).toContainText("Checked the provider status page");

    await page.getByLabel("Resolution note (optional)").fill("Backoff raised to 30 s.");
    await page.getByRole("button", { name: "Resolve", exact: true }).click();
    await expect(status).toHaveText("resolved");
    await expect(log.locator('[data-action="resolve"]')).toContainText("Backoff raised to 30 s.");
    await expect(page.getByTestId("fields")).toContainText("responder@e2e.test");

    await page.getByRole("button", { name: "Reopen" }).click();
    await expect(status).toHaveText("open");
    await expect(log.locator('[data-action="reopen"]')).toBeVisible();
  });

  test("an action taken while the activity log is still loading shows up in it", async ({ page }) => {
    await signIn(page, "responder");
    const open = (await byType(page, "rate_limit", { status: "open" })).at(-1)!;
    const note = `Noted before the log loaded ${Date.now().toString(36)}`;
    // The log's first answer is read now, before the note, and handed over only once the page has
    // asked for fresh data after the note (it asks for the record and the log together): as on a
    // slow server, where a person acts before the log has loaded.
    const release = await holdFirstAnswer(page, `**/api/interruptions/${open.interruption_id}/activity`);
    await page.goto(`/interruptions/${open.interruption_id}`);
    await page.getByLabel("Note", { exact: true }).fill(note);
    const posted = page.waitForResponse((r) => r.url().endsWith(`/${open.interruption_id}/notes`) && r.request().method() === "POST");
    const refreshed = page.waitForRequest((r) => r.method() === "GET" && new URL(r.url()).pathname === `/api/interruptions/${open.interruption_id}`);
    await page.getByRole("button", { name: "Add note" }).click();
    expect((await posted).ok()).toBeTruthy();
    await refreshed;
    release();
    await expect(page.getByTestId("activity-log").locator('[data-action="note"]', { hasText: note })).toBeVisible();
  });

  test("a viewer sees no actions, and the API refuses them", async ({ page }) => {
    await signIn(page, "viewer");
    const [r] = await byType(page, "auth_error");
    await page.goto(`/interruptions/${r.interruption_id}`);
    await expect(page.getByTestId("read-only")).toBeVisible();
    await expect(page.getByTestId("activity-log")).toBeVisible();
    for (const name of ["Acknowledge", "Resolve", "Reopen", "Assign to me", "Add note"]) {
      await expect(page.getByRole("button", { name, exact: true })).toHaveCount(0);
    }
    const res = await page.request.post(`/api/interruptions/${r.interruption_id}/resolve`, { data: {}, headers: { origin: new URL(page.url()).origin } });
    expect(res.status()).toBe(403);
  });

  test("untrusted text of the XSS probe renders literally and runs nothing", async ({ page }) => {
    await signIn(page, "viewer");
    const res = await page.request.get(`/api/interruptions?session_id=e2e-xss-session&start_ns=0`);
    const [r] = (await res.json()) as Rec[];
    expect(r).toBeTruthy();
    await page.goto(`/interruptions/${r.interruption_id}`);
    await expect(page.getByTestId("evidence-message")).toContainText(XSS);
    await expect(page.getByTestId("fields")).toContainText(`agent${XSS}`);
    await expect(page.getByTestId("call-context").getByTestId("part-text").last()).toHaveText(XSS);
    await expect(page.getByTestId("call-error")).toContainText(XSS);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
  });

  test("an unknown id says so", async ({ page }) => {
    await signIn(page, "viewer");
    await page.goto(`/interruptions/${"0".repeat(32)}`);
    await expect(page.getByRole("heading", { name: "Interruption not found" })).toBeVisible();
  });
});

test("a very long agent name, session id and tool name wrap: neither the detail nor the session page scrolls sideways", async ({ page }) => {
  const api = await dashboardApi();
  const session = `long-${Date.now().toString(36)}-${"s".repeat(400)}`;
  const agent = "a".repeat(250);
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  const call = {
    call_id: `${session.slice(0, 40)}-call`, session_id: session, agent_name: agent, start_ns: String(start), end_ns: String(start + 1_000_000_000n), status_code: 429,
    error: "rate limited", input_messages: [{ role: "user", parts: [{ type: "text", content: "go" }] }], output_messages: [],
  };
  expect((await api.post("/api/ingest/calls", { data: [call] })).ok()).toBeTruthy();
  const tool = { kind: "tool_result", session_id: session, tool_call_id: "t".repeat(200), name: "n".repeat(250), success: false, error: "e".repeat(300), at_ns: String(start + 2_000_000_000n) };
  expect((await api.post("/api/ingest/events", { data: [tool] })).ok()).toBeTruthy();
  const listed = await api.get(`/api/sessions/${encodeURIComponent(session)}/interruptions`);
  const records = (await listed.json()) as { interruption_id: string }[];
  expect(records).toHaveLength(2);
  await api.dispose();

  const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  await signIn(page, "viewer");
  await page.setViewportSize({ width: 1024, height: 800 });
  for (const r of records) {
    await page.goto(`/interruptions/${r.interruption_id}`);
    await expect(page.getByText(agent).first()).toBeVisible();
    expect(await sideways()).toBeLessThanOrEqual(0);
  }
  await page.goto(`/sessions/${encodeURIComponent(session)}`);
  await expect(page.getByTestId("session-id")).toBeVisible();
  expect(await sideways()).toBeLessThanOrEqual(0);
});
