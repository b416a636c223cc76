// Settings → Alert webhooks, a rate rule end to end (issue 15): an admin adds "at least 1
// interruption within 7 days" sent to PagerDuty (the Events API pointed at a receiver started
// here), the demo's interruptions make it fire at once — the receiver gets one trigger keyed by
// the rule and the row says "firing" — and "Send test" sends a test alert and resolves it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { signIn, snapshot } from "./fixtures";

type Event = { routing_key: string; event_action: string; dedup_key: string; payload?: { summary: string; severity: string; custom_details: { count: number } } };

let receiver: http.Server;
let endpoint = "";
const events: Event[] = [];

test.beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url === "/v2/enqueue") events.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Event);
      res.writeHead(202, { "content-type": "application/json" }).end('{"status":"success","message":"Event processed"}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v2/enqueue`;
});

test.afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});

test("an admin adds a rate rule with a PagerDuty channel; it fires, shows as firing, and sends a test", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/settings#webhooks");
  const section = page.locator("#webhooks");
  await section.getByRole("button", { name: "Add webhook" }).click();
  const form = page.getByRole("form", { name: "Add webhook" });
  const name = `e2e rate ${Date.now().toString(36)}`;
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("When").selectOption("rate");
  await form.getByLabel("At least (interruptions)").fill("1");
  await form.getByLabel("Within (minutes)").fill("10080");
  // without an SMTP server, email cannot be chosen
  await expect(form.getByRole("option", { name: /Email \(no SMTP server configured\)/ })).toBeDisabled();
  await form.getByLabel("Channel").selectOption("pagerduty");
  await form.getByLabel("Routing key").fill("e2e-routing-key-0123456789abcdef");
  await form.getByLabel("Events API URL").fill(endpoint);
  await form.getByLabel("Minimum severity").selectOption("low");
  await expect(form.getByLabel("Repeat interval (minutes)")).toHaveCount(0); // a rate rule has its window instead
  await snapshot(page, "settings-alert-rate-form");
  await form.getByRole("button", { name: "Add webhook" }).click();

  const row = page.getByTestId("webhook-row").filter({ hasText: name });
  await expect(row).toBeVisible();
  await expect(row.getByTestId("webhook-channel")).toHaveText("PagerDuty");
  await expect(row.getByTestId("webhook-rule")).toContainText("at least 1 within 168 h");
  await expect(row).toContainText("routing key …cdef");
  await expect(page.getByText("e2e-routing-key-0123456789abcdef")).toHaveCount(0); // the key is not shown again

  // the demo's interruptions are within the window: one trigger, keyed by the rule
  const hooks = (await (await page.request.get("/api/webhooks")).json()) as { id: string; name: string }[];
  const id = hooks.find((h) => h.name === name)!.id;
  await expect.poll(() => events.filter((e) => e.dedup_key === `sightdesk/rate/${id}`).length, { timeout: 15_000 }).toBe(1);
  const trigger = events.find((e) => e.dedup_key === `sightdesk/rate/${id}`)!;
  expect(trigger).toMatchObject({ routing_key: "e2e-routing-key-0123456789abcdef", event_action: "trigger" });
  const count = trigger.payload!.custom_details.count;
  expect(count).toBeGreaterThan(0);
  expect(trigger.payload!.summary).toBe(`[FIRING] ${name}: ${count} interruption${count === 1 ? "" : "s"} in 168 h (at least 1)`);
  await page.reload();
  await expect(row.getByTestId("rate-state")).toHaveText(`firing (${count})`);

  // send test: a test alert of its own, resolved at once
  await row.getByRole("button", { name: "Send test" }).click();
  await expect(row.getByTestId("webhook-test-result")).toHaveText(/^Test delivered \(HTTP 202, \d+ ms\)\.$/);
  const test = events.filter((e) => e.dedup_key.startsWith("sightdesk/test/"));
  expect(test.map((e) => e.event_action)).toEqual(["trigger", "resolve"]);
  expect(test[0].payload?.severity).toBe("info");
  await row.getByRole("button", { name: "Deliveries" }).click();
  await expect(row.getByTestId("delivery-row")).toHaveCount(2);
  await expect(row.getByRole("link", { name: "rate.triggered" })).toHaveAttribute("href", /^\/inbox\?range=custom&from=.*&unresolved=false$/);
  await snapshot(page, "settings-alert-rate-rule");

  await row.getByRole("button", { name: `Delete ${name}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete webhook" }).click();
  await expect(row).toHaveCount(0);
});
