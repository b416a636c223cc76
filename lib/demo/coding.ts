// Routine coding work for CoshNG: tasks made of search / read / edit / test steps, played into a
// conversation as a turn of tool-calling LLM calls.
import type { ConversationBuilder, TurnEndReason } from "./builder";

export type Edit = { path: string; old: string; new: string; say?: string };

export type CodingTurn = {
  request: string;
  /** reasoning of the turn's first call */
  plan: string;
  grep?: { pattern: string; path?: string; hits: string[] };
  read: string[];
  edits: Edit[];
  test?: { cmd: string; output: string };
  answer: string;
};

export type CodingTask = { repo: string; turns: CodingTurn[] };

const READ_LINES = [
  (f: string) => `Let me look at \`${f}\`.`,
  (f: string) => `Opening ${f} to see how it is wired.`,
  (f: string) => `I need the current implementation in ${f}.`,
  (f: string) => `Checking ${f} next.`,
  () => "",
];
const SEARCH_LINES = [
  (p: string) => `Searching for \`${p}\` to find the relevant code.`,
  (p: string) => `First, where is ${p} used?`,
];
const EDIT_LINES = [
  (f: string) => `Updating ${f}.`,
  (f: string) => `Now the change in \`${f}\`.`,
  (f: string) => `Applying the edit to ${f}.`,
];

const lineCount = (s: string) => s.split("\n").length;

/** read_file output: the content with right-aligned line numbers. */
export function numbered(text: string): string {
  return text
    .split("\n")
    .map((line, i) => `${String(i + 1).padStart(4)}  ${line}`)
    .join("\n");
}

const camel = (s: string) => s.replace(/[-_.](\w)/g, (_m, c: string) => c.toUpperCase());
const pascal = (s: string) => camel(s).replace(/^\w/, (c) => c.toUpperCase());

/** Plausible content for a file path (hand-written ones where the story needs them). */
export function fileText(path: string): string {
  const known = FILES[path];
  if (known) return known;
  const file = path.split("/").pop() ?? path;
  const base = file.replace(/\.[^.]+$/, "");
  if (file.endsWith(".md")) return `# ${pascal(base)}\n\nThis document describes ${base.replace(/[-_]/g, " ")}.\n\n## Usage\n\nSee the examples below.\n`;
  if (file.endsWith(".tsx")) {
    const name = pascal(base);
    return [
      `import { type ReactNode } from "react";`,
      `import styles from "./${name}.module.css";`,
      ``,
      `export type ${name}Props = { children?: ReactNode; className?: string };`,
      ``,
      `export function ${name}({ children, className }: ${name}Props) {`,
      `  return <div className={[styles.root, className].filter(Boolean).join(" ")}>{children}</div>;`,
      `}`,
    ].join("\n");
  }
  if (file.endsWith(".test.ts")) {
    return [`import { describe, expect, it } from "vitest";`, `import { ${camel(base.replace(".test", ""))} } from "../src/${base.replace(".test", "")}";`, ``, `describe("${base.replace(".test", "")}", () => {`, `  it("works", () => {`, `    expect(${camel(base.replace(".test", ""))}).toBeDefined();`, `  });`, `});`].join("\n");
  }
  const fnName = camel(base);
  return [
    `import { logger } from "../lib/logger";`,
    `import type { Config } from "../config";`,
    ``,
    `export type ${pascal(base)}Options = { config: Config; dryRun?: boolean };`,
    ``,
    `export async function ${fnName}(opts: ${pascal(base)}Options): Promise<void> {`,
    `  logger.debug("${base}: start", { dryRun: opts.dryRun ?? false });`,
    `  // ...`,
    `}`,
  ].join("\n");
}

export function vitestOutput(repo: string, files: Array<[string, number]>, seconds: string): string {
  const total = files.reduce((n, [, c]) => n + c, 0);
  return [
    ` RUN  v2.1.8 /workspace/${repo}`,
    ``,
    ...files.map(([f, c], i) => ` ✓ ${f} (${c} tests) ${17 + i * 23}ms`),
    ``,
    ` Test Files  ${files.length} passed (${files.length})`,
    `      Tests  ${total} passed (${total})`,
    `   Duration  ${seconds}s`,
  ].join("\n");
}

/** Plays one coding turn: the user's request, the tool steps, the final answer. */
export function codingTurn(
  conv: ConversationBuilder,
  turn: CodingTurn,
  o: { end?: TurnEndReason | null; thinkMs?: number; continued?: boolean } = {},
): void {
  const r = conv.rng;
  if (!o.continued) conv.user(turn.request, o.thinkMs);
  let plan: string | undefined = turn.plan || undefined;
  const reasoning = () => {
    const p = plan;
    plan = undefined;
    return p;
  };
  const say = (s: string) => (s ? { text: s } : {});
  if (turn.grep) {
    const { pattern, path, hits } = turn.grep;
    conv.step({ reasoning: reasoning(), ...say(r.pick(SEARCH_LINES)(pattern)), tools: [{ name: "grep", args: { pattern, ...(path ? { path } : {}) } }] });
    conv.respond([hits.length ? hits.join("\n") : "(no matches)"]);
  }
  for (let i = 0; i < turn.read.length; ) {
    const pair = i + 1 < turn.read.length && r.chance(0.4);
    const files = turn.read.slice(i, i + (pair ? 2 : 1));
    const text = pair ? `Reading ${files[0]} and ${files[1]}.` : r.pick(READ_LINES)(files[0]);
    conv.step({ reasoning: reasoning(), ...say(text), tools: files.map((f) => ({ name: "read_file", args: { path: f } })) });
    conv.respond(files.map((f) => numbered(fileText(f))));
    i += files.length;
  }
  for (const e of turn.edits) {
    const text = say(e.say ?? r.pick(EDIT_LINES)(e.path));
    if (e.old === "") {
      conv.step({ reasoning: reasoning(), ...text, tools: [{ name: "write_file", args: { path: e.path, content: e.new } }] });
      conv.respond([`Wrote ${e.path} (${lineCount(e.new)} lines)`]);
    } else {
      conv.step({ reasoning: reasoning(), ...text, tools: [{ name: "edit_file", args: { path: e.path, old_string: e.old, new_string: e.new } }] });
      conv.respond([`Edited ${e.path}: 1 replacement (+${lineCount(e.new)} −${lineCount(e.old)} lines)`]);
    }
  }
  if (turn.test) {
    conv.step({ reasoning: reasoning(), text: `Running \`${turn.test.cmd}\` to check the change.`, tools: [{ name: "bash", args: { cmd: turn.test.cmd } }] });
    conv.respond([{ response: `${turn.test.output}\n[exit code: 0]`, durationMs: r.int(3000, 38_000) }]);
  }
  conv.step({ text: turn.answer });
  if (o.end !== null) conv.endTurn(o.end ?? "completed");
}

// ---------------------------------------------------------------------------------------------
// Hand-written files the stories refer to

const FILES: Record<string, string> = {
  "src/commands/list.ts": [
    `import { Command } from "commander";`,
    `import { loadProjects } from "../projects";`,
    `import { formatTable } from "../format";`,
    ``,
    `export const list = new Command("list")`,
    `  .description("List the projects of the current workspace")`,
    `  .option("-a, --all", "include archived projects")`,
    `  .action(async (opts: { all?: boolean }) => {`,
    `    const projects = await loadProjects({ includeArchived: opts.all ?? false });`,
    `    console.log(formatTable(projects, ["name", "owner", "updatedAt"]));`,
    `  });`,
  ].join("\n"),
  "src/format.ts": [
    `export function formatTable<T extends Record<string, unknown>>(rows: T[], columns: (keyof T)[]): string {`,
    `  const widths = columns.map((c) => Math.max(String(c).length, ...rows.map((r) => String(r[c] ?? "").length)));`,
    `  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");`,
    `  return [line(columns.map(String)), ...rows.map((r) => line(columns.map((c) => String(r[c] ?? ""))))].join("\\n");`,
    `}`,
  ].join("\n"),
  "package.json": JSON.stringify(
    {
      name: "acme-cli",
      version: "2.3.1",
      type: "module",
      bin: { acme: "./dist/cli.js" },
      scripts: { build: "tsc -p tsconfig.build.json", test: "vitest run", lint: "eslint src", prepublishOnly: "npm run build" },
      dependencies: { commander: "^12.1.0", kleur: "^4.1.5" },
      devDependencies: { typescript: "^5.6.3", vitest: "^2.1.8", eslint: "^9.14.0" },
    },
    null,
    2,
  ),
  ".github/workflows/ci.yml": [
    `name: ci`,
    `on: [push, pull_request]`,
    `jobs:`,
    `  test:`,
    `    runs-on: ubuntu-latest`,
    `    steps:`,
    `      - uses: actions/checkout@v4`,
    `      - uses: actions/setup-node@v4`,
    `        with: { node-version: 20, cache: npm }`,
    `      - run: npm ci`,
    `      - run: npm test`,
    `      - run: node dist/cli.js --version`,
  ].join("\n"),
  "tsconfig.build.json": [`{`, `  "extends": "./tsconfig.json",`, `  "compilerOptions": { "outDir": "dist", "rootDir": "src" },`, `  "include": ["src"]`, `}`].join("\n"),
  "src/components/Navbar.tsx": [
    `import { useState } from "react";`,
    `import { Link } from "react-router-dom";`,
    `import { useSession } from "../hooks/useSession";`,
    ``,
    `export function Navbar() {`,
    `  const { user, signOut } = useSession();`,
    `  const [open, setOpen] = useState(false);`,
    `  return (`,
    `    <nav className="navbar">`,
    `      <Link to="/">Acme</Link>`,
    `      <ul className="links">{["Shop", "Deals", "Help"].map((l) => <li key={l}><Link to={"/" + l.toLowerCase()}>{l}</Link></li>)}</ul>`,
    `      {user ? <button onClick={signOut}>{user.name}</button> : <Link to="/login">Sign in</Link>}`,
    `      <button className="burger" onClick={() => setOpen(!open)} aria-expanded={open}>☰</button>`,
    `      {open && <div className="mobile-menu">…</div>}`,
    `    </nav>`,
    `  );`,
    `}`,
  ].join("\n"),
  "src/components/Avatar.tsx": [
    `export function Avatar({ url, name }: { url?: string; name: string }) {`,
    `  return <img className="avatar" src={url} alt={name} />;`,
    `}`,
  ].join("\n"),
  "src/components/ProfileCard.tsx": [
    `import { Avatar } from "./Avatar";`,
    ``,
    `export function ProfileCard({ user }: { user: { avatarUrl?: string; displayName: string; bio: string } }) {`,
    `  return (`,
    `    <section className="profile-card">`,
    `      <Avatar url={user.avatarUrl} name={user.displayName} />`,
    `      <h2 dangerouslySetInnerHTML={{ __html: user.displayName }} />`,
    `      <p>{user.bio}</p>`,
    `    </section>`,
    `  );`,
    `}`,
  ].join("\n"),
  "src/hooks/useCart.ts": [
    `import { useCallback, useMemo, useState } from "react";`,
    ``,
    `export type CartItem = { sku: string; price: number; qty: number };`,
    ``,
    `export function useCart(initial: CartItem[] = []) {`,
    `  const [items, setItems] = useState(initial);`,
    `  const add = useCallback((item: CartItem) => setItems((xs) => {`,
    `    const found = xs.find((x) => x.sku === item.sku);`,
    `    return found ? xs.map((x) => (x.sku === item.sku ? { ...x, qty: x.qty + item.qty } : x)) : [...xs, item];`,
    `  }), []);`,
    `  const remove = useCallback((sku: string) => setItems((xs) => xs.filter((x) => x.sku !== sku)), []);`,
    `  const total = useMemo(() => items.reduce((n, x) => n + x.price * x.qty, 0), [items]);`,
    `  return { items, add, remove, total };`,
    `}`,
  ].join("\n"),
  "db/schema.sql": Array.from({ length: 40 }, (_, i) => {
    const names = ["users", "orders", "order_items", "products", "inventory", "invoices", "payments", "refunds", "shipments", "addresses"];
    const name = i < names.length ? names[i] : `${names[i % names.length]}_archive_${Math.floor(i / names.length)}`;
    return `CREATE TABLE ${name} (\n  id BIGSERIAL PRIMARY KEY,\n  created_at TIMESTAMPTZ NOT NULL DEFAULT now()\n);`;
  }).join("\n\n"),
};

// ---------------------------------------------------------------------------------------------
// Routine tasks (clean turns)

export const JSON_FLAG_TASK: CodingTask = {
  repo: "acme-cli",
  turns: [
    {
      request: "Add a `--json` flag to `acme list` that prints the projects as JSON instead of the table.",
      plan: "The user wants machine-readable output for `acme list`. I should find the command definition and the table formatter, add an option, and keep the table as the default.",
      grep: { pattern: "formatTable", hits: ["src/commands/list.ts:3:import { formatTable } from \"../format\";", "src/commands/list.ts:10:    console.log(formatTable(projects, [\"name\", \"owner\", \"updatedAt\"]));", "src/format.ts:1:export function formatTable<T extends Record<string, unknown>>(rows: T[], columns: (keyof T)[]): string {"] },
      read: ["src/commands/list.ts", "src/format.ts"],
      edits: [
        {
          path: "src/commands/list.ts",
          old: `  .option("-a, --all", "include archived projects")`,
          new: `  .option("-a, --all", "include archived projects")\n  .option("--json", "print the projects as JSON")`,
          say: "Adding the option next to `--all`.",
        },
        {
          path: "src/commands/list.ts",
          old: `    console.log(formatTable(projects, ["name", "owner", "updatedAt"]));`,
          new: `    if (opts.json) console.log(JSON.stringify(projects, null, 2));\n    else console.log(formatTable(projects, ["name", "owner", "updatedAt"]));`,
        },
      ],
      test: { cmd: "npm test -- tests/commands/list.test.ts", output: vitestOutput("acme-cli", [["tests/commands/list.test.ts", 9]], "1.21") },
      answer:
        "Done. `acme list --json` now prints the projects as a JSON array; without the flag the table is unchanged.\n\n" +
        "- `src/commands/list.ts`: new `--json` option; the action branches on it.\n" +
        "- Ran `npm test -- tests/commands/list.test.ts`: 9 passed.\n\nI did not add a test for the JSON branch yet — want me to?",
    },
    {
      request: "Yes, add a test for it, and document the flag in the README.",
      plan: "Add a test that runs the list action with --json and parses the output, then a README line under the list command.",
      read: ["tests/commands/list.test.ts", "README.md"],
      edits: [
        {
          path: "tests/commands/list.test.ts",
          old: `describe("list", () => {`,
          new: `describe("list", () => {\n  it("prints JSON with --json", async () => {\n    const out = await run(["list", "--json"]);\n    expect(JSON.parse(out)).toEqual(expect.arrayContaining([expect.objectContaining({ name: "demo" })]));\n  });`,
        },
        { path: "README.md", old: "### acme list", new: "### acme list\n\n`--json` prints the projects as JSON (one array), for scripts." },
      ],
      test: { cmd: "npm test", output: vitestOutput("acme-cli", [["tests/commands/list.test.ts", 10], ["tests/format.test.ts", 7], ["tests/projects.test.ts", 14]], "2.08") },
      answer: "Added `prints JSON with --json` to `tests/commands/list.test.ts` and a short section in `README.md`. Full suite: 31 tests passed.",
    },
  ],
};

export const ROUTINE_TASKS: CodingTask[] = [
  {
    repo: "acme-cli",
    turns: [
      {
        request: "`acme init` crashes with `TypeError: Cannot read properties of undefined (reading 'name')` when there is no git remote. Fix it.",
        plan: "The crash is a missing remote: something reads remote.name without checking. Find where init reads git remotes.",
        grep: { pattern: "getRemote", hits: ["src/git.ts:14:export async function getRemote(cwd: string) {", "src/commands/init.ts:22:  const remote = await getRemote(cwd);"] },
        read: ["src/commands/init.ts", "src/git.ts"],
        edits: [{ path: "src/commands/init.ts", old: "  const projectName = remote.name;", new: "  const projectName = remote?.name ?? path.basename(cwd);" }],
        test: { cmd: "npm test -- tests/commands/init.test.ts", output: vitestOutput("acme-cli", [["tests/commands/init.test.ts", 6]], "0.94") },
        answer: "Fixed: `acme init` now falls back to the folder name when the repository has no remote (`src/commands/init.ts`). The init tests pass (6).",
      },
    ],
  },
  {
    repo: "acme-cli",
    turns: [
      {
        request: "Bump the minimum Node version to 20 everywhere (package.json engines, CI matrix, docs).",
        plan: "Three places: engines in package.json, the CI node-version, and the installation section of the docs.",
        grep: { pattern: "node-version|engines|Node 18", hits: [".github/workflows/ci.yml:9:        with: { node-version: 18, cache: npm }", "docs/install.md:3:Requires Node 18 or later."] },
        read: ["docs/install.md"],
        edits: [
          { path: ".github/workflows/ci.yml", old: "node-version: 18", new: "node-version: 20" },
          { path: "docs/install.md", old: "Requires Node 18 or later.", new: "Requires Node 20 or later." },
          { path: "package.json", old: `"type": "module",`, new: `"type": "module",\n  "engines": { "node": ">=20" },` },
        ],
        answer: "Node 20 is now the minimum: `engines` in `package.json`, the CI `node-version`, and `docs/install.md`. No code change was needed.",
      },
      {
        request: "Also run the whole test suite once to be sure.",
        plan: "Just run the suite.",
        read: [],
        edits: [],
        test: { cmd: "npm test", output: vitestOutput("acme-cli", [["tests/commands/init.test.ts", 6], ["tests/commands/list.test.ts", 10], ["tests/format.test.ts", 7]], "1.77") },
        answer: "All green: 23 tests in 3 files.",
      },
    ],
  },
  {
    repo: "payments-service",
    turns: [
      {
        request: "Add an index on `payments(customer_id, created_at)`; the customer history page is slow.",
        plan: "A new migration file; check the migrations folder naming first.",
        read: ["migrations/README.md"],
        edits: [
          {
            path: "migrations/20260104_payments_customer_idx.sql",
            old: "",
            new: "CREATE INDEX CONCURRENTLY IF NOT EXISTS payments_customer_created_idx\n  ON payments (customer_id, created_at DESC);",
          },
        ],
        answer:
          "Added `migrations/20260104_payments_customer_idx.sql` with `CREATE INDEX CONCURRENTLY … (customer_id, created_at DESC)`. " +
          "`CONCURRENTLY` avoids locking the table, so the migration must not run inside a transaction — the runner's `-- no-transaction` header is set.",
      },
    ],
  },
  {
    repo: "payments-service",
    turns: [
      {
        request: "Log the Stripe request id on every failed charge so support can look it up.",
        plan: "Find the charge error handler and include err.requestId in the log fields.",
        grep: { pattern: "catch \\(err", path: "src/billing", hits: ["src/billing/charge.ts:57:  } catch (err) {", "src/billing/refund.ts:33:  } catch (err) {"] },
        read: ["src/billing/charge.ts", "src/billing/refund.ts"],
        edits: [
          { path: "src/billing/charge.ts", old: `    logger.warn("charge failed", { customerId });`, new: `    logger.warn("charge failed", { customerId, stripeRequestId: (err as Stripe.errors.StripeError).requestId });` },
          { path: "src/billing/refund.ts", old: `    logger.warn("refund failed", { paymentId });`, new: `    logger.warn("refund failed", { paymentId, stripeRequestId: (err as Stripe.errors.StripeError).requestId });` },
        ],
        test: { cmd: "npm test -- src/billing", output: vitestOutput("payments-service", [["src/billing/charge.test.ts", 11], ["src/billing/refund.test.ts", 5]], "2.40") },
        answer: "Failed charges and refunds now log `stripeRequestId` (`src/billing/charge.ts`, `src/billing/refund.ts`). Billing tests pass (16).",
      },
    ],
  },
  {
    repo: "acme-web",
    turns: [
      {
        request: "The footer year is hard-coded to 2024. Make it current.",
        plan: "Trivial: find the footer and use new Date().getFullYear().",
        grep: { pattern: "2024", path: "src/components", hits: ["src/components/Footer.tsx:9:      <small>© 2024 Acme Inc.</small>"] },
        read: ["src/components/Footer.tsx"],
        edits: [{ path: "src/components/Footer.tsx", old: "<small>© 2024 Acme Inc.</small>", new: "<small>© {new Date().getFullYear()} Acme Inc.</small>" }],
        answer: "`src/components/Footer.tsx` now renders the current year.",
      },
    ],
  },
  {
    repo: "acme-web",
    turns: [
      {
        request: "Add a loading skeleton to the product grid while products are fetched.",
        plan: "ProductGrid renders nothing while loading. Add a Skeleton component with the same grid layout and show 8 placeholders.",
        read: ["src/components/ProductGrid.tsx", "src/components/ProductCard.tsx"],
        edits: [
          { path: "src/components/ProductGrid.tsx", old: "  if (isLoading) return null;", new: "  if (isLoading) return <div className={styles.grid}>{Array.from({ length: 8 }, (_, i) => <ProductCardSkeleton key={i} />)}</div>;" },
          { path: "src/components/ProductCard.tsx", old: "export function ProductCard(", new: "export function ProductCardSkeleton() {\n  return <div className={styles.card} aria-busy=\"true\"><div className={styles.imagePlaceholder} /></div>;\n}\n\nexport function ProductCard(" },
        ],
        test: { cmd: "npx vitest run src/components", output: vitestOutput("acme-web", [["src/components/ProductGrid.test.tsx", 4], ["src/components/ProductCard.test.tsx", 6]], "3.12") },
        answer: "While products load, the grid shows 8 `ProductCardSkeleton` placeholders with the same layout (`aria-busy` set). Component tests pass.",
      },
      {
        request: "Looks good. Can the skeleton pulse a little?",
        plan: "A CSS keyframe on the placeholder, respecting prefers-reduced-motion.",
        read: ["src/components/ProductCard.module.css"],
        edits: [
          {
            path: "src/components/ProductCard.module.css",
            old: ".imagePlaceholder {",
            new: "@keyframes pulse { 50% { opacity: 0.5; } }\n\n.imagePlaceholder {\n  animation: pulse 1.6s ease-in-out infinite;",
          },
        ],
        answer: "Added a gentle `pulse` animation to the placeholder. It is disabled under `prefers-reduced-motion` by the global reset in `src/styles/base.css`.",
      },
    ],
  },
  {
    repo: "payments-service",
    turns: [
      {
        request: "What does `reconcilePayouts` do when a payout is in `pending` for more than 3 days?",
        plan: "A question, not a change. Read the reconcile job and answer with the code path.",
        grep: { pattern: "reconcilePayouts", hits: ["src/jobs/reconcile.ts:12:export async function reconcilePayouts(now = new Date()) {", "src/jobs/index.ts:8:  schedule(\"0 * * * *\", reconcilePayouts);"] },
        read: ["src/jobs/reconcile.ts"],
        edits: [],
        answer:
          "Nothing special happens at 3 days: `reconcilePayouts` (`src/jobs/reconcile.ts`) only re-fetches pending payouts from Stripe every hour and updates their status. " +
          "There is no age threshold or alert — a payout stuck in `pending` is retried forever. If you want an alert, the natural place is after the Stripe fetch in the loop.",
      },
    ],
  },
  {
    repo: "acme-cli",
    turns: [
      {
        request: "Replace `chalk` with `kleur` in src/log.ts, we already depend on kleur.",
        plan: "Swap the import and the color calls; kleur has the same chainable API for what we use.",
        read: ["src/log.ts"],
        edits: [{ path: "src/log.ts", old: `import chalk from "chalk";`, new: `import kleur from "kleur";` }, { path: "src/log.ts", old: "chalk.yellow(", new: "kleur.yellow(" }],
        test: { cmd: "npm run lint && npm test", output: `> acme-cli@2.3.1 lint\n> eslint src\n\n${vitestOutput("acme-cli", [["tests/log.test.ts", 3], ["tests/format.test.ts", 7]], "1.02")}` },
        answer: "`src/log.ts` now uses `kleur`; `chalk` is no longer imported anywhere, so it can be removed from `package.json` (I left that to you). Lint and tests pass.",
      },
    ],
  },
  {
    repo: "acme-platform",
    turns: [
      {
        request: "The api service logs every request body at info level, including passwords on /login. Stop logging bodies on auth routes.",
        plan: "Find the request logger middleware and add a redaction or a route skip list.",
        grep: { pattern: "logger.info\\(.*body", path: "services/api", hits: ["services/api/src/middleware/requestLog.ts:7:  logger.info({ method: req.method, url: req.url, body: req.body }, \"request\");"] },
        read: ["services/api/src/middleware/requestLog.ts"],
        edits: [
          {
            path: "services/api/src/middleware/requestLog.ts",
            old: "  logger.info({ method: req.method, url: req.url, body: req.body }, \"request\");",
            new: "  const body = SENSITIVE_ROUTES.some((r) => req.url.startsWith(r)) ? \"[omitted]\" : req.body;\n  logger.info({ method: req.method, url: req.url, body }, \"request\");",
          },
        ],
        test: { cmd: "npm test -w services/api -- requestLog", output: vitestOutput("acme-platform/services/api", [["src/middleware/requestLog.test.ts", 5]], "0.66") },
        answer: "Request bodies of `/login`, `/signup` and `/password-reset` are no longer logged (`services/api/src/middleware/requestLog.ts`, new `SENSITIVE_ROUTES` list). Existing logs still contain them — consider purging the last 14 days.",
      },
    ],
  },
  {
    repo: "acme-web",
    turns: [
      {
        request: "Add `loading=\"lazy\"` to the product images below the fold.",
        plan: "ProductCard renders the images; the first row is above the fold, so pass an index and lazy-load from the second row on.",
        read: ["src/components/ProductCard.tsx", "src/components/ProductGrid.tsx"],
        edits: [
          { path: "src/components/ProductCard.tsx", old: "<img src={product.image} alt={product.name} />", new: "<img src={product.image} alt={product.name} loading={eager ? \"eager\" : \"lazy\"} />" },
          { path: "src/components/ProductGrid.tsx", old: "<ProductCard key={p.id} product={p} />", new: "<ProductCard key={p.id} product={p} eager={i < 4} />" },
        ],
        answer: "Images after the first row (4 cards) now use `loading=\"lazy\"`; the first row stays eager so the largest contentful paint is not delayed.",
      },
    ],
  },
  {
    repo: "payments-service",
    turns: [
      {
        request: "Why do refunds sometimes get created twice when the user double-clicks?",
        plan: "Probably no idempotency key on refund creation. Check the refund route and the Stripe call.",
        grep: { pattern: "refunds.create", hits: ["src/billing/refund.ts:21:  const refund = await stripe.refunds.create({ payment_intent: paymentId, amount });"] },
        read: ["src/billing/refund.ts", "src/routes/refunds.ts"],
        edits: [
          {
            path: "src/billing/refund.ts",
            old: "  const refund = await stripe.refunds.create({ payment_intent: paymentId, amount });",
            new: "  const refund = await stripe.refunds.create({ payment_intent: paymentId, amount }, { idempotencyKey: `refund:${requestId}` });",
          },
        ],
        test: { cmd: "npm test -- src/billing/refund", output: vitestOutput("payments-service", [["src/billing/refund.test.ts", 6]], "1.12") },
        answer: "The refund call had no idempotency key, so two clicks created two Stripe refunds. `src/billing/refund.ts` now passes `idempotencyKey: refund:<requestId>`, and the route takes the request id from the client's `Idempotency-Key` header. Tests pass (6).",
      },
      {
        request: "Should the button also be disabled while the request runs?",
        plan: "A UX question; answer directly.",
        read: [],
        edits: [],
        answer: "Yes, both: disable the button for feedback, but keep the idempotency key — a disabled button does not stop retries from flaky networks, browser back/forward, or a second tab.",
      },
    ],
  },
  {
    repo: "acme-cli",
    turns: [
      {
        request: "Print a friendly error instead of a stack trace when the config file is invalid JSON.",
        plan: "Find where the config is parsed and wrap JSON.parse with a message that names the file and position.",
        grep: { pattern: "JSON.parse", path: "src", hits: ["src/config.ts:12:  return JSON.parse(fs.readFileSync(file, \"utf8\")) as Config;"] },
        read: ["src/config.ts"],
        edits: [
          {
            path: "src/config.ts",
            old: "  return JSON.parse(fs.readFileSync(file, \"utf8\")) as Config;",
            new: "  try {\n    return JSON.parse(fs.readFileSync(file, \"utf8\")) as Config;\n  } catch (e) {\n    throw new UserError(`${file} is not valid JSON: ${(e as Error).message}`);\n  }",
          },
        ],
        test: { cmd: "npm test -- tests/config.test.ts", output: vitestOutput("acme-cli", [["tests/config.test.ts", 8]], "0.74") },
        answer: "An invalid config now prints `acme.config.json is not valid JSON: Unexpected token } in JSON at position 84` and exits with status 2, without a stack trace (`src/config.ts`, using the existing `UserError`).",
      },
    ],
  },
];
