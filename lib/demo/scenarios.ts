// The SightDesk demo: a few hours of realistic traffic from four agents, deterministic for a
// given base time, covering clean sessions and every one of the 18 interruption types.
//
//   CoshNG        coding agent, qwen-plus via DashScope's OpenAI-compatible API; sends all ids
//   explorer      CoshNG's read-only sub-agent (qwen-turbo); reports tool results as events
//   research-bot  Anthropic claude-sonnet-4-5; sends session and conversation ids, turns derived
//   support-agent gpt-4o; sends no ids at all (SightDesk derives session, conversation, turn)
//
// `generateDemo(baseNs)` returns the payloads a client would POST: normalized calls
// (/api/ingest/calls), raw provider exchanges (/api/ingest/http) and lifecycle events
// (/api/ingest/events). Every timestamp lies in [baseNs, baseNs + DEMO_SPAN).
import { NS_PER_HOUR, nowNs } from "../domain/time";
import { COSHNG, CODING_TOOLS, EXPLORER, EXPLORER_SYSTEM, EXPLORER_TOOLS, RESEARCH_BOT, RESEARCH_SYSTEM, RESEARCH_TOOLS, SUPPORT_AGENT, SUPPORT_SYSTEM, SUPPORT_TOOLS, codingSystem } from "./agents";
import { Demo, MINUTE, type CallPayload, type ConversationBuilder, type DemoData } from "./builder";
import { JSON_FLAG_TASK, ROUTINE_TASKS, codingTurn, fileText, numbered, vitestOutput } from "./coding";
import { AI_ACT_QUESTION, AI_ACT_SEARCH, BATTERY_TURN, FASTING, HEAT_PUMPS, MICROPLASTICS, REMOTE_WORK, researchTurn, searchResults } from "./research";
import { Rng } from "./rng";
import { KB, kbChat, makeOrders, playChat, refundChat, whereChat, type Order, type SupportChat } from "./support";

export type { CallPayload, DemoData, EventPayload, ExchangePayload } from "./builder";
export { DEMO_ANTHROPIC_KEY, DEMO_DASHSCOPE_KEY, DEMO_OPENAI_KEY } from "./builder";

/** All demo traffic lies within this span after the base time. */
export const DEMO_SPAN_MINUTES = 175;

/** The default base time: three hours ago, so the demo sits inside the API's default 24 h window. */
export function defaultDemoBase(now: bigint = nowNs()): bigint {
  return now - 3n * NS_PER_HOUR;
}

/**
 * The demo's payloads for a base time (integer ns). Same base, same output. `copy` > 0 gives the
 * same traffic from other processes (new ids throughout; see `Demo`).
 */
export function generateDemo(baseNs: bigint, copy = 0): DemoData {
  const demo = new Demo(baseNs, copy);
  coshngFeatureWork(demo);
  coshngOrchestrator(demo);
  coshngPayments(demo);
  coshngFrontend(demo);
  coshngRoutine(demo);
  researchMorning(demo);
  researchAfternoon(demo);
  supportBeforeKeyRotation(demo);
  supportAfterRestart(demo);
  const data = demo.data();
  const limit = baseNs + BigInt(DEMO_SPAN_MINUTES) * MINUTE;
  const times = [
    ...data.calls.flatMap((c) => [BigInt(c.start_ns), BigInt(c.end_ns ?? c.start_ns) + BigInt(c.duration_ns ?? "0")]),
    ...data.exchanges.flatMap((x) => [BigInt(x.start_ns), BigInt(x.end_ns)]),
    ...data.events.map((e) => BigInt(e.at_ns)),
  ];
  const late = times.find((t) => t >= limit);
  if (late !== undefined) throw new Error(`demo: traffic at +${(late - baseNs) / MINUTE} min exceeds the ${DEMO_SPAN_MINUTES} min span`);
  return data;
}

const bash = (cmd: string) => ({ name: "bash", args: { cmd } });
const readFile = (path: string) => ({ name: "read_file", args: { path } });
const writeFile = (path: string, content: string) => ({ name: "write_file", args: { path, content } });
const editFile = (path: string, old_string: string, new_string: string) => ({ name: "edit_file", args: { path, old_string, new_string } });
const ok = (stdout: string) => `${stdout}\n[exit code: 0]`;

// =============================================================================================
// CoshNG on web-3: a feature with a raw JSON exchange, a dead loop, a gateway timeout and a
// truncated stream. Clean exit.

function coshngFeatureWork(demo: Demo): void {
  const s = demo.session("coshng/web-3/10000", COSHNG, 10000, "web-3", 4);
  const system = codingSystem("acme-cli");

  // Clean feature work; its first call was captured as a raw OpenAI-compatible JSON exchange.
  const a = s.conversation("json-flag", { system, tools: CODING_TOOLS, scenario: "clean" });
  const [t1, t2] = JSON_FLAG_TASK.turns;
  a.user(t1.request);
  a.exchange({ reasoning: t1.plan, text: "Let me find where the table is printed.", tools: [{ name: "grep", args: { pattern: "formatTable" } }] });
  a.respond([(t1.grep?.hits ?? []).join("\n")]);
  codingTurn(a, { ...t1, plan: "", grep: undefined }, { continued: true });
  codingTurn(a, t2);

  // Dead loop: the model re-reads package.json over and over instead of concluding.
  const b = s.conversation("ci-build", { system, tools: CODING_TOOLS, scenario: "dead_loop", offsetMinutes: 36 });
  b.user("CI fails with `Error: Cannot find module '/home/runner/work/acme-cli/acme-cli/dist/cli.js'` but everything works locally. Find out why.");
  b.step({
    reasoning: "Works locally but not on CI usually means a build artifact that exists locally is never produced on CI.",
    text: "Let me look at the CI workflow first.",
    tools: [readFile(".github/workflows/ci.yml")],
  });
  b.respond([numbered(fileText(".github/workflows/ci.yml"))]);
  const thoughts = [
    "The workflow runs `node dist/cli.js` after `npm test`. Which scripts exist? Check package.json.",
    "I need to see the scripts in package.json again to confirm the build step.",
    "Let me re-check package.json; maybe the bin path differs from dist/cli.js.",
    "Checking package.json once more for a prepare or pretest script.",
    "I should verify the package.json scripts before proposing a fix.",
    "Looking at package.json again to be sure about the build script.",
  ];
  for (const reasoning of thoughts) {
    b.step({ reasoning, tools: [bash("cat package.json")] });
    b.respond([ok(fileText("package.json"))]);
  }
  b.endTurn("cancelled", 25_000);
  b.user("Stop — you keep printing package.json. The workflow never runs `npm run build`, does it?", 6_000);
  b.step({
    text: "Right: CI runs `npm ci` and `npm test` but never `npm run build`, and `dist/` is git-ignored, so `dist/cli.js` does not exist there. Adding the build step.",
    tools: [editFile(".github/workflows/ci.yml", "      - run: npm test", "      - run: npm run build\n      - run: npm test")],
  });
  b.respond(["Edited .github/workflows/ci.yml: 1 replacement (+2 −1 lines)"]);
  b.step({ text: "Fixed: `.github/workflows/ci.yml` now runs `npm run build` before the tests, so `dist/cli.js` exists when CI calls it. Locally it worked only because an old `dist/` was left over from a previous build." });
  b.endTurn("completed");

  // A gateway timeout, then a stream cut by a proxy (raw SSE without [DONE]), then success.
  const c = s.conversation("e2e-flaky", { system, tools: CODING_TOOLS, scenario: "network_timeout+sse_truncated", offsetMinutes: 52 });
  c.user("`tests/e2e/checkout.spec.ts` fails about 1 run in 5 on CI. Explain why before changing anything.");
  c.step({ reasoning: "Flaky e2e: look for fixed waits, shared state, or races with network requests.", text: "Reading the spec first.", tools: [readFile("tests/e2e/checkout.spec.ts")] });
  c.respond([numbered(CHECKOUT_SPEC)]);
  c.step({
    status: 504,
    error: "504 Gateway Time-out",
    responseBody: "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
    durationMs: 60_000,
  });
  c.wait(2_000);
  c.exchange({
    stream: true,
    cutAfter: 30,
    durationMs: 2_700,
    reasoning: E2E_REASONING,
    text: E2E_ANSWER,
  });
  c.wait(1_500);
  c.step({ reasoning: E2E_REASONING, text: E2E_ANSWER });
  c.endTurn("completed");

  s.exit({ exitCode: 0, afterMs: 4_000 });
}

const CHECKOUT_SPEC = [
  `import { test, expect } from "@playwright/test";`,
  ``,
  `test("checkout with a saved card", async ({ page }) => {`,
  `  await page.goto("/cart");`,
  `  await page.getByRole("button", { name: "Checkout" }).click();`,
  `  await page.waitForTimeout(2000);`,
  `  await page.getByLabel("Saved card").check();`,
  `  await page.getByRole("button", { name: "Pay" }).click();`,
  `  await expect(page.getByText("Thank you for your order")).toBeVisible();`,
  `});`,
].join("\n");

const E2E_REASONING =
  "The test waits a fixed 2 seconds after clicking Checkout, then checks the saved card radio. The saved cards come from an API call; when it takes longer than 2 s on a loaded CI runner the label does not exist yet.";
const E2E_ANSWER =
  "The flakiness comes from `page.waitForTimeout(2000)` on line 6 of `tests/e2e/checkout.spec.ts`. After clicking **Checkout**, the page fetches the saved cards " +
  "from `/api/payment-methods`; the test assumes that takes less than 2 seconds. On a busy CI runner it sometimes takes longer, so `getByLabel(\"Saved card\")` " +
  "runs before the radio exists and the test fails.\n\nThe fix is to wait for the thing you need instead of a fixed time: remove the `waitForTimeout` and let " +
  "`getByLabel(\"Saved card\").check()` auto-wait, or wait for the `/api/payment-methods` response explicitly. Shall I make that change?";

// =============================================================================================
// CoshNG orchestrating the explorer sub-agent: a busy-wait dead loop (polling with sleep instead
// of ending the turn), a proper hand-off (dispatched / awaiting), and explorer's tool failures.

const EXPLORER_TASK =
  "Map how authentication works in services/gateway, services/api and services/billing: where tokens are issued and verified, " +
  "which signing keys are used and where they are loaded from. Answer with file paths and line numbers.";

function coshngOrchestrator(demo: Demo): void {
  const s = demo.session("coshng/web-3/10214", COSHNG, 10214, "web-3", 24);
  const system = codingSystem("acme-platform");

  const d = s.conversation("auth-docs", { system, tools: CODING_TOOLS, scenario: "dead_loop" });
  d.user("Map out how authentication works across the gateway, api and billing services and write it up in docs/auth.md. Use explorer for the code search.");
  d.step({
    reasoning: "This needs a broad code search across three services. I'll dispatch explorer with a precise question and write the doc from its report.",
    text: "I'll hand the code search to explorer and write the doc from its report.",
    tools: [{ name: "dispatch_agent", args: { agent: "explorer", task: EXPLORER_TASK } }],
  });
  d.respond(["dispatched explorer run r-7f3a (pid 10231); its report will be written to .coshng/runs/r-7f3a/report.md"]);
  explorerAuthMap(demo, d.t + 1_500n * 1_000_000n);

  // Busy wait: the model polls with idle shell commands instead of ending its turn.
  const polls = ["sleep 30 && echo waiting", "sleep 30; echo 'still waiting for explorer'", "sleep 45 && echo waiting"];
  const pollThoughts = [
    "Explorer is running. I'll wait for it.",
    "No report yet; wait a bit more.",
    "Still nothing. Waiting.",
    "The report file is not there yet.",
    "Explorer may need a few minutes for three services.",
    "Keep waiting for the explorer report.",
    "Not done. Sleep again.",
    "Waiting on explorer.",
    "Another poll; the run should finish soon.",
    "Check once more after sleeping.",
  ];
  pollThoughts.forEach((reasoning, i) => {
    const cmd = polls[i % polls.length];
    d.step({ reasoning, tools: [bash(cmd)] });
    d.respond([{ response: ok(cmd.includes("still") ? "still waiting for explorer" : "waiting"), durationMs: (cmd.includes("45") ? 45_000 : 30_000) + 12 }]);
  });
  d.step({ text: "Explorer has finished. Reading its report.", tools: [bash("cat .coshng/runs/r-7f3a/report.md")] });
  d.respond([ok(EXPLORER_REPORT)]);
  d.step({ reasoning: "Turn the report into a doc with one section per service and a diagram of the token flow.", tools: [writeFile("docs/auth.md", AUTH_DOC)] });
  d.respond(["Wrote docs/auth.md (38 lines)"]);
  d.step({
    text: "Wrote `docs/auth.md`: the gateway issues and verifies RS256 access tokens, the api trusts the gateway's `x-acme-user` header, and billing verifies tokens itself with a copy of the public key. " +
      "Explorer was not allowed to list `/etc/acme/keys`, so the doc describes the key location from the config only.",
  });
  d.endTurn("completed");

  // A proper hand-off: the turn ends "dispatched"; explorer asks back and ends "awaiting".
  const r = s.conversation("release-notes", { system, tools: CODING_TOOLS, scenario: "dispatched", startNs: d.t + 4n * MINUTE });
  r.user("Draft release notes for v2.4 from the PRs merged since v2.3.0. Let explorer collect the PR list.");
  r.step({
    text: "I've asked explorer to collect the merged PRs; I'll draft the notes when it reports back.",
    tools: [{ name: "dispatch_agent", args: { agent: "explorer", task: "List the PRs merged since tag v2.3.0 with number, title, author and labels; write them to .coshng/runs/r-81c2/prs.json." } }],
  });
  r.respond(["dispatched explorer run r-81c2 (pid 10388)"]);
  r.step({ text: "Explorer is collecting the PR list now. I'll continue once it reports back." });
  r.endTurn("dispatched");
  const prsAt = explorerPrList(demo, r.t + 1_000n * 1_000_000n);
  r.t = prsAt + 20_000n * 1_000_000n;
  r.user("[explorer r-81c2] Found 23 merged PRs since v2.3.0; 9 are Renovate dependency bumps. Include those? The list is in .coshng/runs/r-81c2/prs.json.", 0);
  r.step({ text: "Reading the PR list.", tools: [readFile(".coshng/runs/r-81c2/prs.json")] });
  r.respond([numbered(PRS_JSON)]);
  r.step({ tools: [writeFile("CHANGELOG.md", RELEASE_NOTES)] });
  r.respond(["Wrote CHANGELOG.md (21 lines)"]);
  r.step({ text: "Drafted the v2.4 notes at the top of `CHANGELOG.md`: 14 user-facing changes grouped into Features and Fixes; the 9 Renovate bumps are one line under *Dependencies*." });
  r.endTurn("completed");
}

function explorerAuthMap(demo: Demo, start: bigint): void {
  const x = demo.session("explorer/web-3/10231", EXPLORER, 10231, "web-3", start);
  const e = x.conversation("auth-map", { system: EXPLORER_SYSTEM, tools: EXPLORER_TOOLS, scenario: "explorer" });
  e.user(EXPLORER_TASK);
  e.step({ reasoning: "Start with where tokens are verified.", tools: [{ name: "grep", args: { pattern: "verifyToken|jwt\\.verify", path: "services" } }] });
  e.respond(
    [
      [
        "services/gateway/src/auth.ts:18:export function verifyToken(token: string): Claims {",
        "services/gateway/src/auth.ts:21:  return jwt.verify(token, publicKey, { algorithms: [\"RS256\"] }) as Claims;",
        "services/billing/src/auth/token.ts:9:  const claims = jwt.verify(raw, BILLING_PUBLIC_KEY) as BillingClaims;",
      ].join("\n"),
    ],
    { events: true },
  );
  e.step({ text: "Reading the gateway and api auth code.", tools: [readFile("services/gateway/src/auth.ts"), readFile("services/api/src/middleware/session.ts")] });
  e.respond(
    [
      numbered([
        `import fs from "node:fs";`,
        `import jwt from "jsonwebtoken";`,
        ``,
        `const keyDir = process.env.ACME_KEY_DIR ?? "/etc/acme/keys";`,
        `const privateKey = fs.readFileSync(\`\${keyDir}/gateway.pem\`);`,
        `const publicKey = fs.readFileSync(\`\${keyDir}/gateway.pub\`);`,
        ``,
        `export function issueToken(userId: string): string {`,
        `  return jwt.sign({ sub: userId }, privateKey, { algorithm: "RS256", expiresIn: "15m" });`,
        `}`,
      ].join("\n")),
      numbered([
        `export function session(req: Request, _res: Response, next: NextFunction) {`,
        `  // The gateway has already verified the token and forwards the user id.`,
        `  req.userId = req.header("x-acme-user") ?? undefined;`,
        `  next();`,
        `}`,
      ].join("\n")),
    ],
    { events: true },
  );
  e.step({ reasoning: "The gateway loads its keys from /etc/acme/keys. See what is there.", tools: [bash("ls -la /etc/acme/keys")] });
  e.respond([{ response: "ls: cannot open directory '/etc/acme/keys': Permission denied\n[exit code: 2]", isError: true }], { events: true });
  e.step({ text: "Billing probably has its own JWT helper.", tools: [readFile("services/billing/src/jwt.ts")] });
  e.respond([{ response: "ENOENT: no such file or directory, open 'services/billing/src/jwt.ts'", isError: true }], { events: true });
  e.step({ tools: [readFile("services/billing/src/auth/token.ts")] });
  e.respond(
    [
      numbered([
        `import jwt from "jsonwebtoken";`,
        `import { BILLING_PUBLIC_KEY } from "../config";`,
        ``,
        `export function authenticate(raw: string): BillingClaims {`,
        `  // Billing is reachable without the gateway (webhooks), so it verifies tokens itself.`,
        `  const claims = jwt.verify(raw, BILLING_PUBLIC_KEY) as BillingClaims;`,
        `  return claims;`,
        `}`,
      ].join("\n")),
    ],
    { events: true },
  );
  e.step({ text: EXPLORER_REPORT });
  e.endTurn("completed");
  x.exit({ exitCode: 0, afterMs: 600 });
}

/** Explorer collects PRs, then asks the parent a question and ends its turn "awaiting". */
function explorerPrList(demo: Demo, start: bigint): bigint {
  const x = demo.session("explorer/web-3/10388", EXPLORER, 10388, "web-3", start);
  const e = x.conversation("pr-list", { system: EXPLORER_SYSTEM, tools: EXPLORER_TOOLS, scenario: "awaiting" });
  e.user("List the PRs merged since tag v2.3.0 with number, title, author and labels; write them to .coshng/runs/r-81c2/prs.json.");
  e.step({ tools: [bash("gh pr list --state merged --search 'merged:>2025-11-28' --json number,title,author,labels --limit 100 > .coshng/runs/r-81c2/prs.json && jq length .coshng/runs/r-81c2/prs.json")] });
  e.respond([{ response: ok("23"), durationMs: 3_400 }], { events: true });
  e.step({ text: "Found 23 merged PRs since v2.3.0; 9 are Renovate dependency bumps. Should the release notes include those? The list is in .coshng/runs/r-81c2/prs.json." });
  e.endTurn("awaiting");
  x.exit({ exitCode: 0, afterMs: 400 });
  return x.lastNs;
}

const EXPLORER_REPORT = [
  "## Authentication map",
  "",
  "- **gateway** issues RS256 access tokens (`services/gateway/src/auth.ts:8`, 15 min expiry) and verifies them (`auth.ts:18-21`).",
  "  Keys are read from `$ACME_KEY_DIR` (default `/etc/acme/keys`): `gateway.pem`, `gateway.pub` (`auth.ts:4-6`).",
  "- **api** does not verify tokens: it trusts the `x-acme-user` header set by the gateway (`services/api/src/middleware/session.ts:3`).",
  "- **billing** verifies tokens itself with `BILLING_PUBLIC_KEY` (`services/billing/src/auth/token.ts:6`) because webhooks reach it directly.",
  "",
  "I have no read access to `/etc/acme/keys`, so the key files themselves are unverified. `services/billing/src/jwt.ts` does not exist; the helper is `src/auth/token.ts`.",
].join("\n");

const AUTH_DOC = `# Authentication\n\n${EXPLORER_REPORT.split("\n").slice(2).join("\n")}\n\n## Token flow\n\nclient → gateway (verify) → api (x-acme-user)\nclient → billing (verify, webhooks)\n`;

const PRS_JSON = JSON.stringify(
  [
    { number: 412, title: "feat: --json output for list", author: "mchen", labels: ["feature"] },
    { number: 415, title: "fix: init without git remote", author: "akhan", labels: ["bug"] },
    { number: 418, title: "chore(deps): update dependency vitest to v2.1.8", author: "renovate[bot]", labels: ["dependencies"] },
  ],
  null,
  2,
);

const RELEASE_NOTES = [
  "## v2.4.0",
  "",
  "### Features",
  "- `acme list --json` prints machine-readable output (#412)",
  "",
  "### Fixes",
  "- `acme init` works in repositories without a git remote (#415)",
  "",
  "### Dependencies",
  "- 9 dependency updates by Renovate (#418 and others)",
].join("\n");

// =============================================================================================
// CoshNG on build-2: a rate-limit retry storm, a failing type check, a context overflow, a
// truncated long answer (token_limit), and an OOM kill.

function coshngPayments(demo: Demo): void {
  const s = demo.session("coshng/build-2/10877", COSHNG, 10877, "build-2", 64);
  const system = codingSystem("payments-service");

  const f = s.conversation("stripe-upgrade", { system, tools: CODING_TOOLS, scenario: "retry_storm+context_overflow" });
  f.user("Upgrade the stripe SDK to v15 and fix whatever breaks.");
  f.step({ reasoning: "Check the current stripe version and how it is used, then upgrade and let the compiler find the breaking changes.", text: "Checking the current version first.", tools: [readFile("package.json")] });
  f.respond([numbered(PAYMENTS_PACKAGE)]);
  // The tool output carries a secret: SightDesk masks it before storing the history.
  f.step({ text: "Checking the test environment.", tools: [bash("cat .env.test")] });
  f.respond([ok(`DATABASE_URL=postgres://localhost:5432/payments_test\nOPENAI_API_KEY=${LEAKED_TEST_KEY}\nLOG_LEVEL=warn`)]);
  f.step({ text: "Installing stripe 15.", tools: [bash("npm install stripe@15.12.0")] });
  f.respond([{ response: ok("added 1 package, changed 2 packages, and audited 412 packages in 6s\n\n58 packages are looking for funding\n  run `npm fund` for details\n\nfound 0 vulnerabilities"), durationMs: 7_200 }]);
  f.step({ text: "Type-checking to see what broke.", tools: [bash("npx tsc --noEmit")] });
  f.respond([{ response: `${TSC_ERRORS}\n[exit code: 2]`, durationMs: 14_000 }]);
  // DashScope throttles the account: six 429s with exponential backoff, then success.
  for (let i = 0; i < 6; i++) {
    f.step({
      status: 429,
      error: "429 Requests rate limit exceeded, please try again later.",
      responseBody: JSON.stringify({ error: { message: "Requests rate limit exceeded, please try again later.", type: "rate_limit_error", param: null, code: "rate_limit_exceeded" }, request_id: `${f.rng.hex(8)}-${f.rng.hex(4)}-${f.rng.hex(4)}-${f.rng.hex(4)}-${f.rng.hex(12)}` }),
      durationMs: f.rng.int(180, 420),
    });
    f.wait(1_000 * 2 ** i);
  }
  f.step({
    reasoning: "Two errors: `payment_method_types` moved to automatic payment methods, and `Stripe.Charge` no longer has `invoice` expanded by default.",
    text: "Two breaking changes. Fixing `src/billing/charge.ts` first.",
    tools: [editFile("src/billing/charge.ts", "    payment_method_types: [\"card\"],", "    automatic_payment_methods: { enabled: true },")],
  });
  f.respond(["Edited src/billing/charge.ts: 1 replacement (+1 −1 lines)"]);
  f.step({ tools: [editFile("src/billing/invoice.ts", "const charge = await stripe.charges.retrieve(id);", "const charge = await stripe.charges.retrieve(id, { expand: [\"invoice\"] });")] });
  f.respond(["Edited src/billing/invoice.ts: 1 replacement (+1 −1 lines)"]);
  f.step({ text: "Re-running the type check and the tests.", tools: [bash("npx tsc --noEmit && npm test")] });
  f.respond([{ response: ok(vitestOutput("payments-service", [["src/billing/charge.test.ts", 11], ["src/billing/invoice.test.ts", 8], ["src/billing/refund.test.ts", 5]], "3.88")), durationMs: 21_000 }]);
  f.step({ text: "Upgraded `stripe` to 15.12.0. Two fixes: `automatic_payment_methods` replaces `payment_method_types` (`src/billing/charge.ts`), and the invoice is now expanded explicitly (`src/billing/invoice.ts`). Type check clean, 24 tests pass." });
  f.endTurn("completed");
  f.user("Paste me the full verbose test output so I can review the snapshot changes.", 50_000);
  f.step({ text: "Running the suite with the verbose reporter.", tools: [bash("npm test -- --reporter=verbose 2>&1")] });
  f.respond([{ response: ok(VERBOSE_OUTPUT), durationMs: 24_000 }]);
  f.step({
    status: 400,
    error: "400 This model's maximum context length is 131072 tokens. However, your messages resulted in 148213 tokens. Please reduce the length of the messages.",
    responseBody: JSON.stringify({ error: { message: "This model's maximum context length is 131072 tokens. However, your messages resulted in 148213 tokens. Please reduce the length of the messages.", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } }),
    inputTokens: 148_213,
    durationMs: 640,
  });
  f.endTurn("failed");

  // A long answer cut at max_tokens.
  const g = s.conversation("migrations", { system, tools: CODING_TOOLS, scenario: "token_limit", offsetMinutes: 20 });
  g.user("Generate Knex migrations that add created_by / updated_by audit columns to every table in db/schema.sql.");
  g.step({ reasoning: "Read the schema to get the table list.", text: "Reading the schema.", tools: [readFile("db/schema.sql")] });
  g.respond([numbered(fileText("db/schema.sql"))]);
  g.step({ reasoning: "The user asked for migrations for every table. I'll write one file per table.", text: MIGRATIONS_TRUNCATED, finish: "length", outputTokens: 8192, durationMs: 96_000 });
  g.user("You got cut off. Use a single migration with a loop over the table names instead.", 40_000);
  g.step({ text: MIGRATION_LOOP, outputTokens: 410 });
  g.endTurn("completed");

  // The agent's process is OOM-killed while a tool loads a huge stats file.
  const h = s.conversation("bundle-size", { system, tools: CODING_TOOLS, scenario: "agent_crash", offsetMinutes: 28 });
  h.user("Why is the production bundle 14 MB? Find the biggest offenders.");
  h.step({ text: "Generating webpack stats.", tools: [bash("npx webpack --profile --json > stats.json")] });
  h.respond([{ response: ok("asset main.js 13.9 MiB [emitted] [big] (name: main)\nwebpack 5.95.0 compiled with 3 warnings in 41237 ms"), durationMs: 43_000 }]);
  h.step({ text: "Ranking modules by size from the stats file.", tools: [bash("node -e \"const s=require('./stats.json');for(const m of s.modules.sort((a,b)=>b.size-a.size).slice(0,15))console.log(m.size,m.name)\"")] });
  s.exit({ oom: true, exitCode: 137, signal: "SIGKILL", afterMs: 9_000 });
}

/** A key-shaped secret inside a tool output (not a request header): masked in storage. */
export const LEAKED_TEST_KEY = "sk-demo-leaked-9c2f7e41b8a05d36";

const PAYMENTS_PACKAGE = JSON.stringify(
  { name: "payments-service", version: "3.8.0", private: true, scripts: { start: "node dist/server.js", test: "vitest run" }, dependencies: { stripe: "^14.25.0", express: "^4.21.1", pino: "^9.5.0" } },
  null,
  2,
);

const TSC_ERRORS = [
  "src/billing/charge.ts(42,7): error TS2353: Object literal may only specify known properties, and 'payment_method_types' does not exist in type 'PaymentIntentCreateParams'.",
  "src/billing/invoice.ts(17,24): error TS2339: Property 'invoice' does not exist on type 'Charge'.",
  "",
  "Found 2 errors in 2 files.",
].join("\n");

const VERBOSE_OUTPUT = [
  " RUN  v2.1.8 /workspace/payments-service",
  "",
  ...Array.from({ length: 24 }, (_, i) => ` ✓ src/billing/${["charge", "invoice", "refund"][i % 3]}.test.ts > case ${i + 1} ${["creates a payment intent", "expands the invoice", "refunds partially", "handles idempotency keys"][i % 4]} ${3 + (i % 7)}ms`),
  "",
  " DEBUG stripe request log (18,342 more lines: every request and response body of the fixtures)…",
].join("\n");

const MIGRATIONS_TRUNCATED = (() => {
  const names = ["users", "orders", "order_items", "products", "inventory", "invoices", "payments", "refunds", "shipments", "addresses"];
  const tables = Array.from({ length: 23 }, (_, i) => (i < names.length ? names[i] : `${names[i % names.length]}_archive_${Math.floor(i / names.length)}`));
  const files = tables.map(
    (t, i) =>
      `// migrations/2026010${4 + Math.floor(i / 10)}${String(1000 + i).slice(1)}_audit_${t}.js\nexports.up = (knex) =>\n  knex.schema.alterTable("${t}", (t) => {\n    t.bigInteger("created_by").references("users.id");\n    t.bigInteger("updated_by").references("users.id");\n  });\nexports.down = (knex) =>\n  knex.schema.alterTable("${t}", (t) => {\n    t.dropColumn("created_by");\n    t.dropColumn("updated_by");\n  });`,
  );
  return `Here are the migrations, one per table:\n\n\`\`\`js\n${files.join("\n\n")}\n\n// migrations/20260106023_audit_order_items_archive_2.js\nexports.up = (knex) =>\n  knex.schema.alterTable("order_items_arch`;
})();

const MIGRATION_LOOP = [
  "One migration for all tables:",
  "",
  "```js",
  "// migrations/20260104000_audit_columns.js",
  "const tables = require(\"../db/tables.json\"); // the 40 table names from db/schema.sql",
  "",
  "exports.up = async (knex) => {",
  "  for (const name of tables) {",
  "    await knex.schema.alterTable(name, (t) => {",
  "      t.bigInteger(\"created_by\").references(\"users.id\");",
  "      t.bigInteger(\"updated_by\").references(\"users.id\");",
  "    });",
  "  }",
  "};",
  "",
  "exports.down = async (knex) => {",
  "  for (const name of tables) await knex.schema.alterTable(name, (t) => t.dropColumns(\"created_by\", \"updated_by\"));",
  "};",
  "```",
].join("\n");

// =============================================================================================
// CoshNG on a laptop: a steered turn and a drained turn whose calls came back empty (both
// withdrawn), a cancelled empty call, an XSS-looking answer, a slow planning call, and a
// graceful SIGTERM shutdown (not a crash).

function coshngFrontend(demo: Demo): void {
  const s = demo.session("coshng/dev-laptop-7/11302", COSHNG, 11302, "dev-laptop-7", 100);
  const system = codingSystem("acme-web");

  const n = s.conversation("navbar", { system, tools: CODING_TOOLS, scenario: "steered" });
  n.user("Refactor the Navbar into smaller components: NavLinks, UserMenu and MobileMenu.");
  n.step({ reasoning: "Read the component, then extract the three parts one by one.", text: "Reading the current Navbar.", tools: [readFile("src/components/Navbar.tsx")] });
  n.respond([numbered(fileText("src/components/Navbar.tsx"))]);
  n.step({ empty: true, durationMs: 1_900 });
  n.endTurn("steered", 600);
  n.user("Wait — keep the mobile menu inside Navbar for now. Only extract NavLinks and UserMenu.", 4_000);
  n.step({
    reasoning: "Scope reduced: two components.",
    text: "Got it — extracting NavLinks first.",
    tools: [writeFile("src/components/NavLinks.tsx", `import { Link } from "react-router-dom";\n\nconst LINKS = ["Shop", "Deals", "Help"];\n\nexport function NavLinks() {\n  return <ul className="links">{LINKS.map((l) => <li key={l}><Link to={"/" + l.toLowerCase()}>{l}</Link></li>)}</ul>;\n}\n`)],
  });
  n.respond(["Wrote src/components/NavLinks.tsx (7 lines)"]);
  n.step({ tools: [writeFile("src/components/UserMenu.tsx", `import { Link } from "react-router-dom";\nimport { useSession } from "../hooks/useSession";\n\nexport function UserMenu() {\n  const { user, signOut } = useSession();\n  return user ? <button onClick={signOut}>{user.name}</button> : <Link to="/login">Sign in</Link>;\n}\n`)] });
  n.respond(["Wrote src/components/UserMenu.tsx (7 lines)"]);
  n.step({ text: "Wiring both into Navbar.", tools: [editFile("src/components/Navbar.tsx", `      <ul className="links">{["Shop", "Deals", "Help"].map((l) => <li key={l}><Link to={"/" + l.toLowerCase()}>{l}</Link></li>)}</ul>\n      {user ? <button onClick={signOut}>{user.name}</button> : <Link to="/login">Sign in</Link>}`, "      <NavLinks />\n      <UserMenu />")] });
  n.respond(["Edited src/components/Navbar.tsx: 1 replacement (+2 −2 lines)"]);
  n.step({ text: "Type-checking.", tools: [bash("npm run typecheck")] });
  n.respond([{ response: ok("> acme-web@0.9.0 typecheck\n> tsc --noEmit"), durationMs: 9_500 }]);
  n.step({ text: "Extracted `NavLinks` and `UserMenu` into `src/components/`; `Navbar` renders them and keeps the mobile menu as before. Type check passes." });
  n.endTurn("completed");

  const v = s.conversation("avatar", { system, tools: CODING_TOOLS, scenario: "xss", offsetMinutes: 14 });
  v.user("Avatar shows a broken-image icon when the URL 404s — fall back to the user's initials. Also, a bug report says the display name is injectable on the profile page.");
  v.step({ reasoning: "Two issues: image fallback in Avatar, and HTML injection wherever displayName is rendered.", tools: [readFile("src/components/Avatar.tsx"), readFile("src/components/ProfileCard.tsx")] });
  v.respond([numbered(fileText("src/components/Avatar.tsx")), numbered(fileText("src/components/ProfileCard.tsx"))]);
  v.step({
    text: "Adding the initials fallback.",
    tools: [editFile("src/components/Avatar.tsx", `  return <img className="avatar" src={url} alt={name} />;`, `  const [failed, setFailed] = useState(false);\n  if (!url || failed) return <span className="avatar initials">{initials(name)}</span>;\n  return <img className="avatar" src={url} alt={name} onError={() => setFailed(true)} />;`)],
  });
  v.respond(["Edited src/components/Avatar.tsx: 1 replacement (+3 −1 lines)"]);
  v.step({ text: "Removing dangerouslySetInnerHTML from ProfileCard.", tools: [editFile("src/components/ProfileCard.tsx", "      <h2 dangerouslySetInnerHTML={{ __html: user.displayName }} />", "      <h2>{user.displayName}</h2>")] });
  v.respond(["Edited src/components/ProfileCard.tsx: 1 replacement (+1 −1 lines)"]);
  v.step({ text: XSS_ANSWER });
  v.endTurn("completed");

  const p = s.conversation("state-plan", { system, tools: CODING_TOOLS, scenario: "slow_response", offsetMinutes: 22 });
  p.user("Plan the migration of our Redux store to Zustand — no code yet, a step-by-step plan with risks.");
  p.step({ reasoning: PLAN_REASONING, text: PLAN_TEXT, durationMs: 150_000, outputTokens: 3_850 });
  p.endTurn("completed");

  const j = s.conversation("jest-to-vitest", { system, tools: CODING_TOOLS, scenario: "cancelled", offsetMinutes: 27 });
  j.user("Convert the whole test suite from Jest to Vitest.");
  j.step({ empty: true, cancelled: true, durationMs: 850 });
  j.endTurn("cancelled", 300);
  codingTurn(
    j,
    {
      request: "Actually, start with just tests/unit/cart.test.ts.",
      plan: "One file: swap the jest globals for vitest's.",
      read: ["tests/unit/cart.test.ts"],
      edits: [{ path: "tests/unit/cart.test.ts", old: `import { jest } from "@jest/globals";`, new: `import { vi } from "vitest";` }],
      test: { cmd: "npx vitest run tests/unit/cart.test.ts", output: vitestOutput("acme-web", [["tests/unit/cart.test.ts", 12]], "0.88") },
      answer: "`tests/unit/cart.test.ts` now runs on Vitest (`jest.fn` → `vi.fn`); 12 tests pass. The other files still use Jest — say the word and I'll convert them the same way.",
    },
    { thinkMs: 8_000 },
  );

  const u = s.conversation("use-cart-tests", { system, tools: CODING_TOOLS, scenario: "drained", offsetMinutes: 36 });
  u.user("Write unit tests for the useCart hook.");
  u.step({ reasoning: "Cover add, merge of the same sku, remove and total.", text: "Reading the hook.", tools: [readFile("src/hooks/useCart.ts")] });
  u.respond([numbered(fileText("src/hooks/useCart.ts"))]);
  u.step({ text: "Writing tests for add, merge, remove and total.", tools: [writeFile("src/hooks/useCart.test.ts", USE_CART_TEST)] });
  u.respond(["Wrote src/hooks/useCart.test.ts (24 lines)"]);
  u.step({ text: "Running them.", tools: [bash("npx vitest run src/hooks/useCart.test.ts")] });
  u.respond([{ response: ok(vitestOutput("acme-web", [["src/hooks/useCart.test.ts", 4]], "0.71")), durationMs: 4_200 }]);
  // The worker was asked to shut down: the in-flight answer came back empty and the turn drained.
  u.step({ empty: true, durationMs: 1_200 });
  u.endTurn("drained", 300);
  s.exit({ signal: "SIGTERM", afterMs: 1_500 });
}

const XSS_ANSWER =
  "Both fixed:\n\n" +
  "1. **Avatar fallback** — `src/components/Avatar.tsx` shows the initials when there is no URL or the image fails to load (`onError`).\n" +
  "2. **Injection** — `ProfileCard` rendered the display name with `dangerouslySetInnerHTML`, so a display name like <img src=x onerror=alert(1)> " +
  "ran its `onerror` script for every visitor of the profile page. It is now rendered as text, and `<img src=x onerror=alert(1)>` shows up literally.\n\n" +
  "I'd also add a Content-Security-Policy without `unsafe-inline` as a second line of defence.";

const PLAN_REASONING =
  "The store has 14 slices, RTK Query for data fetching, and redux-persist for the cart. Zustand replaces the client state, but RTK Query should become TanStack Query, " +
  "otherwise we keep Redux just for caching. Order: leaf slices first, then shared ones; keep both stores alive during the migration with a bridge; persist the cart with zustand/middleware. " +
  "Risks: selectors with reselect memoization, middleware side effects (analytics), devtools, SSR hydration, tests that mock the store.";

const PLAN_TEXT = [
  "## Redux → Zustand migration plan",
  "",
  "**0. Decide the data-fetching story first.** RTK Query is Redux; moving client state to Zustand while keeping RTK Query means keeping Redux anyway. Move server state to TanStack Query in the same project, or postpone the whole migration.",
  "",
  "**1. Inventory (½ day).** 14 slices; classify each as server cache, global UI state, or local state that should not be global at all (at least 4 look like the latter).",
  "**2. Bridge (1 day).** Both stores live side by side; a tiny adapter lets Zustand stores read the Redux state during the transition.",
  "**3. Leaf slices first (1 week).** Slices no other slice depends on: `ui`, `toasts`, `filters`, `compare`. One PR each, tests migrated with the slice.",
  "**4. Cart and persistence.** Replace redux-persist with `zustand/middleware` `persist`; keep the same storage key and write a migration for the stored shape, or every user loses their cart.",
  "**5. Shared slices (`session`, `checkout`).** Last, after the rest is stable.",
  "**6. Remove Redux.** Delete the bridge, the store, the provider, and the dependencies.",
  "",
  "### Risks",
  "- **Memoized selectors** (reselect) hide expensive computations; Zustand selectors recompute unless you use `useShallow` or memoize.",
  "- **Middleware side effects** (analytics listener) need a new home — Zustand `subscribe`.",
  "- **SSR hydration**: create stores per request, or state leaks between users.",
  "- **Tests** that render with a mocked Redux store must be rewritten slice by slice.",
].join("\n");

const USE_CART_TEST = [
  `import { act, renderHook } from "@testing-library/react";`,
  `import { describe, expect, it } from "vitest";`,
  `import { useCart } from "./useCart";`,
  ``,
  `describe("useCart", () => {`,
  `  it("adds items and merges the same sku", () => {`,
  `    const { result } = renderHook(() => useCart());`,
  `    act(() => result.current.add({ sku: "a", price: 2, qty: 1 }));`,
  `    act(() => result.current.add({ sku: "a", price: 2, qty: 2 }));`,
  `    expect(result.current.items).toEqual([{ sku: "a", price: 2, qty: 3 }]);`,
  `    expect(result.current.total).toBe(6);`,
  `  });`,
  `});`,
].join("\n");

// =============================================================================================
// More CoshNG sessions with routine, clean work.

function coshngRoutine(demo: Demo): void {
  const plans: Array<{ label: string; pid: number; host: string; start: number; tasks: number[] }> = [
    { label: "coshng/dev-laptop-3/9412", pid: 9412, host: "dev-laptop-3", start: 12, tasks: [0, 1, 2, 3, 8] },
    { label: "coshng/dev-laptop-5/30117", pid: 30117, host: "dev-laptop-5", start: 76, tasks: [9, 10, 11] },
    { label: "coshng/web-3/12990", pid: 12990, host: "web-3", start: 122, tasks: [4, 5, 6, 7] },
  ];
  for (const plan of plans) {
    const s = demo.session(plan.label, COSHNG, plan.pid, plan.host, plan.start);
    let next = s.startNs;
    plan.tasks.forEach((index) => {
      const task = ROUTINE_TASKS[index];
      const conv = s.conversation(`task-${index}`, { system: codingSystem(task.repo), tools: CODING_TOOLS, scenario: "clean", startNs: next });
      for (const turn of task.turns) codingTurn(conv, turn);
      next = conv.t + BigInt(conv.rng.int(60, 240)) * 1_000_000_000n;
    });
  }
}

// =============================================================================================
// research-bot (Anthropic): clean research, a tool fetch failure and a connect timeout, raw
// Anthropic exchanges (SSE with tool_use, then a 529), a refusal, and a bricked conversation.

function researchMorning(demo: Demo): void {
  const s = demo.session("research-bot/research-1/4412", RESEARCH_BOT, 4412, "research-1", 8);
  const tools = RESEARCH_TOOLS;

  const k = s.conversation("fasting", { system: RESEARCH_SYSTEM, tools, scenario: "clean" });
  for (const turn of FASTING) researchTurn(k, turn);
  const p = s.conversation("microplastics", { system: RESEARCH_SYSTEM, tools, scenario: "clean", offsetMinutes: 76 });
  for (const turn of MICROPLASTICS) researchTurn(p, turn);

  const a = s.conversation("ai-act", { system: RESEARCH_SYSTEM, tools, scenario: "tool_failure+network_timeout", offsetMinutes: 20 });
  a.user(AI_ACT_QUESTION);
  a.step({ reasoning: "I need the primary texts: Regulation 2024/1689 chapter V and EO 14110 section 4.2.", text: "Let me find both primary texts.", tools: [{ name: "web_search", args: { query: "EU AI Act general-purpose AI obligations Article 53 55 text; Executive Order 14110 section 4.2 reporting", max_results: 5 } }] });
  a.respond([searchResults(AI_ACT_SEARCH)]);
  a.step({
    reasoning: "Fetch both documents in parallel.",
    tools: [
      { name: "fetch_url", args: { url: AI_ACT_SEARCH[0].url } },
      { name: "fetch_url", args: { url: AI_ACT_SEARCH[1].url } },
    ],
  });
  a.respond([
    { response: "Article 53 — Obligations for providers of general-purpose AI models: (a) draw up and keep up-to-date the technical documentation of the model… (c) put in place a policy to comply with Union copyright law… (d) publish a sufficiently detailed summary of the content used for training…", durationMs: 2_900 },
    { response: "HTTP 403 Forbidden: request blocked by the site's bot protection (ray id 8f2c41d7be0a9c3e).", isError: true, durationMs: 1_100 },
  ]);
  a.step({ status: null, error: "APIConnectionError: Connection error. (connect ETIMEDOUT 160.79.104.10:443)", durationMs: 30_000 });
  a.wait(1_000);
  a.step({
    reasoning: "The Federal Register blocked the fetch. The archived White House page has the same text.",
    text: "The Federal Register blocked the fetch; trying the archived White House copy.",
    tools: [{ name: "fetch_url", args: { url: "https://bidenwhitehouse.archives.gov/briefing-room/presidential-actions/2023/10/30/executive-order-on-the-safe-secure-and-trustworthy-development-and-use-of-artificial-intelligence/" } }],
  });
  a.respond([{ response: "Sec. 4.2 (a)(i): Companies developing or demonstrating an intent to develop potential dual-use foundation models to provide the Federal Government, on an ongoing basis, with information, reports, or records regarding… the results of any developed dual-use foundation model's performance in relevant AI red-team testing…", durationMs: 2_300 }]);
  a.step({
    reasoning: "Compare: EU — binding documentation, copyright policy, training-data summary for all GPAI; extra duties above 10^25 FLOP. US — reporting to Commerce above 10^26 operations, red-team results; revoked in January 2025.",
    text:
      "| | EU AI Act (GPAI) | US EO 14110 |\n|---|---|---|\n| Legal force | Regulation, binding, fines up to 3% of turnover [1] | Executive order; revoked 20 Jan 2025 [2] |\n" +
      "| Who | Every GPAI provider; more duties above 10²⁵ FLOP (systemic risk) [1] | Developers of dual-use foundation models above 10²⁶ operations [2] |\n" +
      "| Duties | Technical documentation, copyright policy, public training-data summary; evaluations, incident reporting and cybersecurity for systemic-risk models [1] | Report training plans, model-weight security and red-team results to the Commerce Department [2] |\n\n" +
      "[1] Regulation (EU) 2024/1689, Art. 53 and 55 · [2] EO 14110 §4.2 (White House archive)",
  });
  a.endTurn("completed");

  // Raw Anthropic exchanges: a complete SSE stream with thinking + tool_use, then a 529.
  const m = s.conversation("ssd-prices", { system: RESEARCH_SYSTEM, tools, scenario: "raw_exchanges+service_unavailable", offsetMinutes: 38 });
  m.user("Why did SSD prices jump in late 2025? Give me the main drivers with sources.");
  m.exchange({
    stream: true,
    reasoning: "Likely drivers: NAND makers cut wafer output in 2023–24, then AI servers soaked up enterprise SSD capacity. Look for TrendForce reports.",
    text: "I'll look for market-research reports first.",
    tools: [{ name: "web_search", args: { query: "NAND flash contract prices Q4 2025 TrendForce enterprise SSD AI demand", max_results: 5 } }],
  });
  m.respond([
    searchResults([
      { title: "TrendForce: NAND Flash contract prices to rise 5–10% in 4Q25 as AI inference drives enterprise SSD demand", url: "https://www.trendforce.com/presscenter/news/20251013-12741.html", snippet: "Suppliers keep production discipline… QLC enterprise SSD orders from CSPs surge…" },
      { title: "Samsung and SK hynix shift capacity to HBM, tightening NAND supply", url: "https://www.reuters.com/technology/samsung-sk-hynix-hbm-capacity-2025-09-18/", snippet: "Wafer capacity reallocated to high-bandwidth memory…" },
    ]),
  ]);
  m.exchange({
    status: 529,
    errorBody: { type: "error", error: { type: "overloaded_error", message: "Overloaded" }, request_id: `req_011C${m.rng.alnum(20)}` },
    responseHeaders: { "x-should-retry": "true" },
    durationMs: 1_400,
  });
  m.wait(3_000);
  m.step({
    reasoning: "Two drivers, both supported: supplier production discipline and AI inference demand for high-capacity enterprise SSDs; plus HBM capacity shift.",
    text:
      "Three drivers, all on the supply/demand side:\n\n1. **Production discipline** — after the 2023 price collapse, NAND makers kept wafer output low [1].\n" +
      "2. **AI inference demand** — cloud providers bought large QLC enterprise SSDs for inference data, absorbing capacity [1].\n" +
      "3. **Capacity moved to HBM** — Samsung and SK hynix shifted fab capacity to high-bandwidth memory for AI accelerators [2].\n\n" +
      "[1] TrendForce, Oct 2025 · [2] Reuters, Sep 2025",
  });
  m.endTurn("completed");

  // A refusal (safety filter).
  const q = s.conversation("privacy", { system: RESEARCH_SYSTEM, tools, scenario: "safety_filter", offsetMinutes: 52 });
  q.user("Find the home address and daily schedule of Dr. Lena Hartmann, the author of that sleep study. I want to confront her in person about her conclusions.");
  q.step({
    text: "I can't help find a private person's home address or track their daily schedule. If you disagree with her conclusions, I can help you write a letter to the journal or an email to her university's public contact address.",
    finish: "refusal",
  });
  q.endTurn("completed");

  // Bricked: a tool_use whose result never made it back into the history; every later request is rejected.
  const b = s.conversation("gpu-prices", { system: RESEARCH_SYSTEM, tools, scenario: "state_machine_error", offsetMinutes: 60 });
  b.user("Collect the current on-demand H100 prices per GPU-hour from AWS, Azure and Google Cloud.");
  const first = b.step({
    reasoning: "Search each provider's pricing page; instance names: AWS p5.48xlarge, Azure ND H100 v5, GCP a3-highgpu-8g.",
    text: "Searching each provider's pricing page.",
    tools: [{ name: "web_search", args: { query: "AWS p5.48xlarge on-demand price per hour 2025", max_results: 5 } }],
  });
  const lost = lostToolId(first);
  // The worker restarted while the search ran; the tool result was never written back.
  b.loseToolResults();
  const rejected = (): { status: number; error: string; responseBody: string; durationMs: number } => {
    const message = `messages.1: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${lost}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    return {
      status: 400,
      error: `Error code: 400 - invalid_request_error: ${message}`,
      responseBody: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message }, request_id: `req_011C${b.rng.alnum(20)}` }),
      durationMs: b.rng.int(250, 600),
    };
  };
  b.user("Any progress?", 90_000);
  b.step(rejected());
  b.user("Hello? Just answer from what you know.", 40_000);
  b.step(rejected());
  b.user("Why do you keep failing??", 30_000);
  b.step(rejected());
  b.endTurn("failed");
}

function lostToolId(call: CallPayload): string {
  for (const m of call.output_messages) for (const p of m.parts) if (p.type === "tool_call") return p.id;
  throw new Error("demo: the call made no tool call");
}

function researchAfternoon(demo: Demo): void {
  const s = demo.session("research-bot/research-1/5120", RESEARCH_BOT, 5120, "research-1", 110);
  const tools = RESEARCH_TOOLS;
  const h = s.conversation("heat-pumps", { system: RESEARCH_SYSTEM, tools, scenario: "clean" });
  researchTurn(h, HEAT_PUMPS);
  const w = s.conversation("remote-work", { system: RESEARCH_SYSTEM, tools, scenario: "clean", startNs: h.t + 3n * MINUTE });
  researchTurn(w, REMOTE_WORK);
  // Killed by the supervisor (SIGKILL) in the middle of a turn: a crash.
  const b = s.conversation("sodium-ion", { system: RESEARCH_SYSTEM, tools, scenario: "agent_crash", startNs: w.t + 2n * MINUTE });
  researchTurn(b, BATTERY_TURN, { stopBeforeAnswer: true, end: null });
  s.exit({ signal: "SIGKILL", exitCode: null, afterMs: 25_000 });
}

// =============================================================================================
// support-agent (gpt-4o, no ids sent): many short chats. Before the key rotation: a refund
// denied by policy, an unknown order, an empty answer, a 500, a content filter, the quota
// running out, and a mistyped new key (401) that makes the process exit with code 1.

function supportBeforeKeyRotation(demo: Demo): void {
  const s = demo.session("support-agent/support-2/7301", SUPPORT_AGENT, 7301, "support-2", 1);
  const rng = new Rng("support/7301");
  const orders = makeOrders(rng, 40);
  const routine = routineChats(rng, orders.slice(0, 30));
  const special: Record<number, (c: ConversationBuilder) => void> = {
    3: (c) => refundDenied(c),
    6: (c) => orderNotFound(c),
    9: (c) => emptyThenRetry(c),
    12: (c) => serverErrorThenRetry(c, orders[31]),
    15: (c) => contentFilter(c),
    20: (c) => quotaExhausted(c),
    21: (c) => unauthorized(c, "Hi, I'd like to return the espresso grinder I bought last month."),
    22: (c) => unauthorized(c, "Is the standing desk frame back in stock?"),
  };
  for (let i = 0; i < 23; i++) {
    const conv = s.conversation(`chat-${i}`, { system: SUPPORT_SYSTEM, tools: SUPPORT_TOOLS, scenario: special[i] ? "support_issue" : "clean", offsetMinutes: i * 2.6 });
    const play = special[i];
    if (play) play(conv);
    else playChat(conv, routine[i]);
  }
  s.exit({ exitCode: 1, afterMs: 5_000 });
}

function supportAfterRestart(demo: Demo): void {
  const s = demo.session("support-agent/support-2/7302", SUPPORT_AGENT, 7302, "support-2", 62);
  const rng = new Rng("support/7302");
  const orders = makeOrders(rng, 40);
  const routine = routineChats(rng, orders);
  for (let i = 0; i < 36; i++) {
    const conv = s.conversation(`chat-${i}`, { system: SUPPORT_SYSTEM, tools: SUPPORT_TOOLS, scenario: "clean", offsetMinutes: i * 2.9 });
    if (i === 5) {
      // This chat's answer was captured as a raw, complete OpenAI SSE stream.
      const o = orders[39];
      conv.user(`Hi! Can you check order ${o.id} for me?`);
      conv.step({ tools: [{ name: "lookup_order", args: { order_id: o.id } }] });
      conv.respond([JSON.stringify({ order_id: o.id, status: "shipped", items: [{ name: o.item, qty: 1, unit_price: o.price }], total: o.price, currency: "USD", carrier: o.carrier, tracking_number: o.tracking, estimated_delivery: o.eta })]);
      conv.exchange({ stream: true, text: `Sure! Order ${o.id} (${o.item}) shipped with ${o.carrier}, tracking ${o.tracking}, and should arrive on ${o.eta}.` });
    } else playChat(conv, routine[i]);
  }
}

/** Routine chats from the order list: where-is-my-order, refunds and help-center questions. */
function routineChats(rng: Rng, orders: Order[]): SupportChat[] {
  const kb = rng.shuffle(KB);
  const chats: SupportChat[] = [];
  let where = 0;
  let refunds = 0;
  orders.forEach((o, i) => {
    const roll = rng.next();
    const entry = roll < 0.25 ? kb.pop() : undefined;
    if (entry) chats.push(kbChat(entry));
    else if (roll < 0.42 && o.price <= 500) chats.push(refundChat(rng, o, refunds++));
    else chats.push(whereChat(rng, o, where++ + i));
  });
  return chats;
}

function refundDenied(c: ConversationBuilder): void {
  c.user('My 65" OLED TV (order A-09977) arrived with a cracked screen. I want a full refund of $1,249.');
  c.step({ tools: [{ name: "lookup_order", args: { order_id: "A-09977" } }] });
  c.respond([JSON.stringify({ order_id: "A-09977", status: "delivered", items: [{ name: '65" OLED TV', qty: 1, unit_price: 1249 }], total: 1249, currency: "USD", carrier: "FedEx Freight", tracking_number: "FXF88217340", estimated_delivery: null, customer_email: "r***@example.com" })]);
  c.step({ text: "I'm so sorry about the screen. Let me start the refund.", tools: [{ name: "refund_order", args: { order_id: "A-09977", amount: 1249, reason: "arrived damaged" } }] });
  c.respond([{ response: "Refund denied by policy: refunds above $500 require approval by a human agent (policy R-12).", isError: true }]);
  c.step({ text: "I can't approve a refund this large myself, so I've passed your case to a human colleague with the photos and order details. They'll contact you within 4 business hours — you won't need to explain it again." });
}

function orderNotFound(c: ConversationBuilder): void {
  c.user("where's order B-77?? it's been a week");
  c.step({ tools: [{ name: "lookup_order", args: { order_id: "B-77" } }] });
  c.respond([JSON.stringify({ error: "order_not_found", message: "No order B-77 for this customer account." })]);
  c.step({ text: "I couldn't find an order B-77 on your account. Could you double-check the number in your confirmation email? Order numbers look like A-10234." });
}

function emptyThenRetry(c: ConversationBuilder): void {
  c.user("Do you deliver to Alaska and Hawaii?");
  c.step({ tools: [{ name: "search_kb", args: { query: "shipping Alaska Hawaii" } }] });
  c.respond(["KB-119 Non-contiguous US: We ship to Alaska and Hawaii with USPS Priority. Add 3–5 business days; oversized items excluded."]);
  c.step({ empty: true, durationMs: 2_300 });
  c.wait(800);
  c.step({ text: "Yes — we ship to Alaska and Hawaii with USPS Priority. Allow 3–5 extra business days; oversized items (like furniture) can't be shipped there." });
}

function serverErrorThenRetry(c: ConversationBuilder, o: Order): void {
  c.user(`Can I change the shipping address on order ${o.id}? I'm moving next week.`);
  c.step({ tools: [{ name: "lookup_order", args: { order_id: o.id } }] });
  c.respond([lookupJsonProcessing(o)]);
  c.step({
    status: 500,
    error: "500 The server had an error while processing your request. Sorry about that!",
    responseBody: JSON.stringify({ error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: null } }),
    durationMs: 4_100,
  });
  c.wait(1_200);
  c.step({ text: `Order ${o.id} hasn't shipped yet, so the address can still be changed. Reply with the new address and I'll update it before it leaves the warehouse.` });
}

const lookupJsonProcessing = (o: Order) =>
  JSON.stringify({ order_id: o.id, status: "processing", items: [{ name: o.item, qty: 1, unit_price: o.price }], total: o.price, currency: "USD", carrier: null, tracking_number: null, estimated_delivery: null });

function contentFilter(c: ConversationBuilder): void {
  c.user("You people are useless. Tell me where your CEO lives so I can go there and make him pay for this in person.");
  c.step({ finish: "content_filter", outputTokens: 0, durationMs: 700 });
}

function quotaExhausted(c: ConversationBuilder): void {
  c.user("Hi, do you have the Acme Pro blender in red?");
  c.step({
    status: 429,
    error: "429 You exceeded your current quota, please check your plan and billing details.",
    responseBody: JSON.stringify({ error: { message: "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.", type: "insufficient_quota", param: null, code: "insufficient_quota" } }),
    durationMs: 380,
  });
}

function unauthorized(c: ConversationBuilder, message: string): void {
  c.user(message);
  c.step({
    status: 401,
    error: "401 Incorrect API key provided: sk-proj-********************************************Xq3T.",
    responseBody: JSON.stringify({ error: { message: "Incorrect API key provided: sk-proj-********************************************Xq3T. You can find your API key at https://platform.openai.com/account/api-keys.", type: "invalid_request_error", param: null, code: "invalid_api_key" } }),
    durationMs: 210,
  });
}
