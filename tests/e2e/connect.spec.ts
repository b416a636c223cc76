// Connect an agent (issue 13): an admin opens the page from the overview, mints an ingest
// token that fills the snippets, copies the curl snippet, runs it, and sees the call land under
// "API" without reloading; a viewer (arriving from an empty inbox) gets placeholders, no mint.
import { expect, test } from "@playwright/test";
import { signIn, snapshot } from "./fixtures";

/** The pieces of the copied curl snippet: URL, token and body (single-quoted shell words). */
function parseCurl(text: string): { url: string; token: string; body: string } {
  const url = /-X POST '([^']+)'/.exec(text)?.[1];
  const token = /'Authorization: Bearer ([^']+)'/.exec(text)?.[1];
  const body = /-d '([^']+)'/.exec(text)?.[1];
  if (!url || !token || !body) throw new Error(`not a curl snippet: ${text}`);
  return { url, token, body };
}

test("an admin mints an ingest token, runs the copied curl snippet, and sees the call arrive", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signIn(page, "admin");
  await page.goto("/");
  await page.getByTestId("connect-link").click();
  await expect(page).toHaveURL(/\/connect$/);
  await expect(page.getByRole("heading", { name: "Connect an agent", level: 1 })).toBeVisible();
  const apiSource = page.locator('[data-testid="source"][data-source="api"]');
  await expect(apiSource).toBeVisible();
  await expect(apiSource).not.toContainText("connect-test");
  await expect(page.getByTestId("snippet-curl")).toContainText("<ingest token>");

  await page.getByTestId("mint-token").click();
  const secret = ((await page.getByTestId("connect-token-secret").textContent()) ?? "").trim();
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  for (const id of ["snippet-proxy", "snippet-server-proxy", "snippet-otlp", "snippet-agentsight", "snippet-curl"]) {
    await expect(page.getByTestId(id)).toContainText(secret);
  }
  await expect(page.getByTestId("snippet-proxy-env")).toContainText("OPENAI_BASE_URL=http://127.0.0.1:8788/openai/v1");
  await expect(page.getByTestId("snippet-otlp")).toContainText("/api/otlp/v1/traces");

  const curl = page.getByTestId("snippet-curl");
  await curl.locator("xpath=..").getByRole("button", { name: "Copy" }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(((await curl.textContent()) ?? "").trim());
  const { url, token, body } = parseCurl(copied);
  expect(token).toBe(secret);
  expect(new URL(url).pathname).toBe("/api/ingest/calls");

  // what the user would run in a terminal, from outside the browser's session
  const reply = await fetch(url, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body });
  expect(reply.status, await reply.clone().text()).toBe(200);
  expect(await reply.json()).toMatchObject({ accepted: 1 });

  // polled: no reload
  await expect(apiSource.getByTestId("source-agent").filter({ hasText: "connect-test" })).toBeVisible();
  await expect(apiSource.getByTestId("source-last-seen")).toContainText("just now");
  await snapshot(page, "connect-admin");

  // the minted token can only ingest
  expect((await fetch(new URL("/api/interruptions/count", url), { headers: { Authorization: `Bearer ${token}` } })).status).toBe(403);
});

test("a viewer finds Connect from an empty inbox and sees placeholders, no mint button", async ({ page }) => {
  await signIn(page, "viewer");
  await page.goto("/inbox?agent_name=no-such-agent-connect");
  await expect(page.getByTestId("inbox-empty")).toBeVisible();
  await page.getByTestId("inbox-empty").getByRole("link", { name: "Connect an agent" }).click();
  await expect(page.getByRole("heading", { name: "Connect an agent", level: 1 })).toBeVisible();
  await expect(page.getByTestId("mint-token")).toHaveCount(0);
  await expect(page.getByTestId("connect-ask-admin")).toContainText("ingest");
  await expect(page.getByTestId("snippet-curl")).toContainText("Authorization: Bearer <ingest token>");
  await expect(page.getByTestId("sources").getByTestId("source")).toHaveCount(5);
});
