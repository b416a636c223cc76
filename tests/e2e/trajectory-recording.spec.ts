// A call whose bodies the recording proxy cut (over its 3 MiB cap per side) says so where a user
// looks at it: a "recording truncated" chip on its trajectory row, and what was left out among its
// facts; an answer not recorded whole is not judged empty.
import { expect, test } from "@playwright/test";
import { BASE_URL, signIn, snapshot } from "./fixtures";

test("a call recorded in part shows 'recording truncated' in the trajectory", async ({ page }) => {
  await signIn(page, "admin");
  const origin = BASE_URL;
  const session = `e2e-recording-truncated-${Date.now()}`;
  const callId = `${session}-call`;
  const start = BigInt(Date.now() - 5000) * 1_000_000n;
  const res = await page.request.post("/api/ingest/http", {
    headers: { origin },
    data: [{
      call_id: callId, session_id: session, agent_name: "e2e-proxy",
      start_ns: String(start), end_ns: String(start + 2_000_000_000n),
      request: { method: "POST", url: "https://api.openai.com/v1/chat/completions", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "a very long answer, please" }] }) },
      response: { status: 200, headers: { "content-type": "application/json" }, body: null },
      recording_truncated: 4 * 1024 * 1024,
    }],
  });
  expect(res.ok(), await res.text()).toBeTruthy();

  await page.goto(`/sessions/${encodeURIComponent(session)}?call=${encodeURIComponent(callId)}`);
  const row = page.locator(`[data-testid="call-row"][data-call-id="${callId}"]`);
  await expect(row.getByTestId("row-recording-truncated")).toHaveText("recording truncated");
  await expect(row).toHaveAttribute("data-expanded", "true");
  const fact = row.locator("dl > div").filter({ has: page.locator("dt", { hasText: "not recorded" }) });
  await expect(fact.locator("dd")).toHaveText("4.0 MiB");
  await expect(row.getByTestId("call-messages")).toContainText("No response messages recorded (the response was over the capture layer's size cap).");
  await expect(row).toHaveAttribute("data-marked", "false"); // not judged empty_response
  await snapshot(page, "trajectory-recording-truncated");
});
