// Settings → Import from AgentSight (SPEC §2.5): an admin uploads AgentSight's two SQLite files,
// sees what was imported (and that a second import changes nothing), then finds the imported
// interruption in the inbox; a file that is not SQLite shows the server's error; viewers get a note.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { createAgentSightFiles, insertCall, insertInterruption, SECOND, user } from "../fixtures/agentsight";
import { signIn, snapshot } from "./fixtures";

const AGENT = "e2e-import-agent";
const hex32 = () => [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");

let dir: string;
test.beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sightdesk-e2e-import-"));
});
test.afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** AgentSight's two files: one rate-limited call a minute ago, and AgentSight's interruption for it. */
function agentSightStore(): { genai: string; events: string; interruptionId: string } {
  const store = createAgentSightFiles(fs.mkdtempSync(path.join(dir, "store-")));
  const interruptionId = hex32();
  const session = `e2e-import-${hex32().slice(0, 8)}`;
  const conversation = hex32();
  const callId = `e2e-import-call-${hex32().slice(0, 8)}`;
  const startNs = BigInt(Date.now() - 60_000) * 1_000_000n;
  insertCall(store.genai, { callId, session, conversation, startNs, statusCode: 429, finish: null, output: null, input: [user("import me")], agent: AGENT });
  insertInterruption(store.events, {
    id: interruptionId, session, conversation, callId, type: "rate_limit", severity: "medium", atNs: startNs + SECOND, detail: { status_code: 429 }, agent: AGENT,
  });
  store.genai.close();
  store.events.close();
  return { genai: path.join(store.dir, "genai_events.db"), events: path.join(store.dir, "interruption_events.db"), interruptionId };
}

async function openImport(page: Page) {
  await page.goto("/settings#import");
  const section = page.locator("#import");
  await expect(section.getByRole("heading", { name: "Import from AgentSight" })).toBeVisible();
  return section;
}

test("an admin imports AgentSight's files in Settings, sees the counts, and finds the interruption in the inbox", async ({ page }) => {
  const store = agentSightStore();
  await signIn(page, "admin");
  await page.goto("/inbox"); // the inbox's data is cached from here on
  await expect(page.getByTestId("inbox-table").or(page.getByTestId("inbox-empty"))).toBeVisible();

  const section = await openImport(page);
  await section.getByLabel("genai_events.db").setInputFiles(store.genai);
  await section.getByLabel("interruption_events.db").setInputFiles(store.events);
  await section.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("import-result-calls")).toHaveText("Calls: 1 imported, 0 already present");
  await expect(page.getByTestId("import-result-interruptions")).toHaveText("Interruptions: 1 imported, 0 already present");
  await expect(page.getByTestId("import-result-sessions")).toHaveText("Sessions: 1 imported, 0 already present");
  await snapshot(page, "settings-import-result");

  // the same files again: nothing new
  await section.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("import-result-calls")).toHaveText("Calls: 0 imported, 1 already present");
  await expect(page.getByTestId("import-result-interruptions")).toHaveText("Interruptions: 0 imported, 1 already present");
  await expect(page.getByTestId("import-result-sessions")).toHaveText("Sessions: 0 imported, 1 already present");

  await section.getByRole("link", { name: "Open the inbox" }).click();
  await expect(page).toHaveURL(/\/inbox$/);
  const row = page.locator(`[data-testid="inbox-table"] tbody tr[data-id="${store.interruptionId}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId("cell-type")).toHaveText("rate_limit");
  await expect(row.getByTestId("cell-agent")).toHaveText(AGENT);
});

test("a file that is not SQLite is refused with the server's message, and nothing is imported", async ({ page }) => {
  const store = agentSightStore();
  const notSqlite = path.join(dir, "notes.db");
  fs.writeFileSync(notSqlite, "these are not the calls you are looking for\n");
  await signIn(page, "admin");
  const section = await openImport(page);
  await section.getByLabel("genai_events.db").setInputFiles(notSqlite);
  await section.getByLabel("interruption_events.db").setInputFiles(store.events);
  await section.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByTestId("import-error")).toHaveText(/^genai_events: the file is not a SQLite database/);
  await expect(page.getByTestId("import-result")).toHaveCount(0);
  expect((await page.request.get(`/api/interruptions/${store.interruptionId}`)).status()).toBe(404);
});

test("a viewer sees that only admins can import", async ({ page }) => {
  await signIn(page, "viewer");
  const section = await openImport(page);
  await expect(section.getByTestId("import-readonly-note")).toHaveText("Only admins can import data.");
  await expect(section.getByRole("button", { name: "Import", exact: true })).toHaveCount(0);
});
