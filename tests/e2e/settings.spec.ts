// Settings: API tokens (secret shown once, revoke with confirmation), users and roles (add a
// user, change a role, the new user's view), what non-admins see, and the API refusing them.
import { expect, test, type Page } from "@playwright/test";
import { dashboardApi, holdFirstAnswer, signIn, signInThroughForm, snapshot, unique } from "./fixtures";

const XSS_NAME = `<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>`;

async function openSettings(page: Page): Promise<void> {
  await page.goto("/settings");
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
  await expect(page.getByTestId("config-thresholds")).toBeVisible();
}

test("an admin creates a token, sees its secret once, and revokes it", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signIn(page, "admin");
  await openSettings(page);
  const tokens = page.locator("#tokens");
  await tokens.getByRole("button", { name: "Create token" }).click();
  const form = page.getByRole("form", { name: "Create token" });
  const name = unique("e2e-settings");
  await form.getByLabel("Token name").fill(name);
  await form.getByRole("checkbox", { name: /^triage/ }).check();
  await form.getByLabel("Expires").selectOption("30");
  await form.getByRole("button", { name: "Create token" }).click();

  const created = page.getByTestId("new-token");
  await expect(created).toContainText("it will not be shown again");
  const secret = ((await page.getByTestId("token-secret").textContent()) ?? "").trim();
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  await created.getByRole("button", { name: "Copy token" }).click();
  await expect(created.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

  // the secret works, with the chosen scopes
  const auth = { Authorization: `Bearer ${secret}` };
  expect((await page.request.get("/api/interruptions/count", { headers: auth })).status()).toBe(200);
  const row = page.getByTestId("token-row").filter({ hasText: name });
  await expect(row).toContainText("read");
  await expect(row).toContainText("triage");
  await expect(row.getByTestId("token-state")).toHaveText("active");

  // shown once: after a reload it is nowhere, neither on the page nor in the token list
  await page.reload();
  await expect(row).toBeVisible();
  await expect(page.getByTestId("token-secret")).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);
  expect(await (await page.request.get("/api/tokens")).text()).not.toContain(secret);

  // revoke, with a confirmation that can be cancelled
  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("Revoke this token?");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(row.getByTestId("token-state")).toHaveText("active");
  await row.getByRole("button", { name: `Revoke ${name}` }).click();
  await dialog.getByRole("button", { name: "Revoke token" }).click();
  await expect(dialog).toBeHidden();
  await expect(row.getByTestId("token-state")).toHaveText("revoked");
  await expect(row.getByRole("button", { name: /Revoke/ })).toHaveCount(0);
  expect((await page.request.get("/api/interruptions/count", { headers: auth })).status()).toBe(401);
});

test("a user added while the users list is still loading shows up in it", async ({ page }) => {
  await signIn(page, "admin");
  // The list's first answer is read now, before the add, and handed over once the page asks for
  // the list again after the add (or 2 s after it, when it does not): as on a slow server.
  const release = await holdFirstAnswer(page, "**/api/users");
  await openSettings(page);
  const email = `${unique("early")}@e2e.test`;
  await page.locator("#users").getByRole("button", { name: "Add user" }).click();
  const form = page.getByRole("form", { name: "Add user" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Role").selectOption("viewer");
  await form.getByLabel("Password", { exact: true }).fill("early-viewer-pass-1");
  const added = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/users" && r.request().method() === "POST");
  await form.getByRole("button", { name: "Create user" }).click();
  expect((await added).ok()).toBeTruthy();
  await Promise.race([page.waitForRequest((r) => new URL(r.url()).pathname === "/api/users" && r.method() === "GET"), page.waitForTimeout(2_000)]);
  release();
  await expect(page.locator(`[data-testid="user-row"][data-email="${email}"]`)).toBeVisible();
});

test("a role changed and changed back while the users list is slow to come back: each change shows at once and takes effect", async ({ page }) => {
  const api = await dashboardApi();
  const email = `${unique("twice")}@e2e.test`;
  expect((await api.post("/api/users", { data: { email, role: "viewer", password: "twice-viewer-pass-1" } })).ok()).toBeTruthy();
  await api.dispose();
  await signIn(page, "admin");
  await openSettings(page);
  const role = page.locator(`[data-testid="user-row"][data-email="${email}"]`).getByLabel(`Role of ${email}`);
  await expect(role).toHaveValue("viewer");
  // the list, read again after the change, answers late (a busy server)
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route((url) => url.pathname === "/api/users", async (route) => {
    const response = await route.fetch().catch(() => null);
    await released;
    if (response) await route.fulfill({ response }).catch(() => undefined); // the page may have stopped waiting for it
  }, { times: 1 });
  await role.selectOption("responder");
  await expect(page.getByTestId("users-notice")).toContainText(`${email} is now responder`);
  await expect(role).toHaveValue("responder"); // before, "viewer" again until the list came back
  await role.selectOption("viewer"); // before, ignored: it looked like no change
  await expect(page.getByTestId("users-notice")).toContainText(`${email} is now viewer`);
  release();
  await expect(role).toHaveValue("viewer");
});

test("an admin adds a viewer, who then sees no admin actions", async ({ page }) => {
  await signIn(page, "admin");
  await openSettings(page);
  const users = page.locator("#users");
  await expect(page.getByTestId("users-table")).toContainText("admin@e2e.test");

  const email = `${unique("viewer")}@e2e.test`;
  const password = "new-viewer-pass-1";
  await users.getByRole("button", { name: "Add user" }).click();
  const form = page.getByRole("form", { name: "Add user" });
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Name").fill(XSS_NAME);
  await form.getByLabel("Role").selectOption("viewer");
  await form.getByLabel("Password", { exact: true }).fill(password);
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByTestId("users-notice")).toContainText(`Added ${email} as viewer`);

  const row = page.locator(`[data-testid="user-row"][data-email="${email}"]`);
  await expect(row).toContainText(XSS_NAME); // the name is text, not markup
  const role = row.getByLabel(`Role of ${email}`);
  await expect(role).toHaveValue("viewer");

  // a duplicate is refused with the server's message
  await users.getByRole("button", { name: "Add user" }).click();
  await form.getByLabel("Email").fill(email.toUpperCase());
  await form.getByLabel("Password", { exact: true }).fill(password);
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByTestId("add-user-error")).toContainText("exists");
  await form.getByRole("button", { name: "Cancel" }).click();

  // roles change in place
  await role.selectOption("responder");
  await expect(page.getByTestId("users-notice")).toContainText(`${email} is now responder`);
  await role.selectOption("viewer");
  await expect(page.getByTestId("users-notice")).toContainText(`${email} is now viewer`);
  await expect(role).toHaveValue("viewer");
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  await snapshot(page, "settings");

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await signInThroughForm(page, { email, password });
  await expect(page.getByTestId("current-user")).toContainText("viewer");
  await openSettings(page);
  await expect(page.getByTestId("users-readonly-note")).toContainText("viewer");
  await expect(page.getByTestId("tokens-readonly-note")).toBeVisible();
  for (const name of ["Add user", "Create token", "Create user", "Reset password", "Delete", "Revoke"]) {
    await expect(page.getByRole("button", { name })).toHaveCount(0);
  }
  await expect(page.getByTestId("users-table")).toHaveCount(0);
  await expect(page.getByTestId("tokens-table")).toHaveCount(0);
  await expect(page.getByRole("combobox")).toHaveCount(0);
  expect((await page.request.get("/api/users")).status()).toBe(403);
  expect((await page.request.get("/api/tokens")).status()).toBe(403);
  await snapshot(page, "settings-viewer");
});

test("a responder cannot create tokens: the UI hides it and the API refuses", async ({ page }) => {
  await signIn(page, "responder");
  await openSettings(page);
  await expect(page.getByTestId("tokens-readonly-note")).toBeVisible();
  await expect(page.getByRole("button", { name: "Create token" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Add user" })).toHaveCount(0);
  const origin = new URL(page.url()).origin;
  const res = await page.request.post("/api/tokens", { data: { name: "responder-token", scopes: ["read"] }, headers: { Origin: origin } });
  expect(res.status()).toBe(403);
  expect(((await res.json()) as { error: string }).error).toMatch(/responder/);
  const user = await page.request.post("/api/users", {
    data: { email: "sneaky@e2e.test", role: "admin", password: "sneaky-pass-1" },
    headers: { Origin: origin },
  });
  expect(user.status()).toBe(403);
});

test("the effective configuration shows thresholds and severities, and no secrets", async ({ page }) => {
  await signIn(page, "viewer");
  await openSettings(page);
  const config = page.locator("#configuration");
  await expect(config.getByTestId("detection-enabled")).toHaveText("enabled");
  await expect(config.getByTestId("config-thresholds")).toContainText("slow_response threshold");
  await expect(config.getByTestId("config-thresholds")).toContainText("120 s");
  await expect(config.getByTestId("config-severities")).toContainText("agent_crash");
  await expect(config.getByTestId("config-severities").getByTestId("severity-critical")).toContainText("3");
  const text = (await config.textContent()) ?? "";
  expect(text).not.toMatch(/file:|postgres:\/\/|NEXTAUTH_SECRET|[0-9a-f]{64}/);
});
