// `sightdesk user create`: adds a dashboard user straight to the local database (after applying
// the migrations), so that the first admin can be made before the server has ever run and
// before any user or API token exists. It honours SIGHTDESK_DATA_DIR and DATABASE_URL like the
// server does.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { DomainError } from "../../domain/errors";
import { stringifyExact } from "../../wire/json";
import type { Role } from "../../auth/roles";
import { createUser, MIN_PASSWORD_LENGTH } from "../../auth/users";
import { createDb } from "../../db/client";
import { migrate } from "../../db/migrate";
import { PRISMA_FILES } from "../../db/schemaFiles";
import { databaseUrl, providerOf, sqliteFilePath } from "../../db/url";
import { CliError, EXIT_REQUEST, InputError, UsageError } from "../errors";
import { safeLine } from "../format";
import { type Io, line } from "../io";
import { PASSWORD_ENV } from "../options";

export type CreateOptions = { email: string; role: Role; name?: string; password?: string; json?: boolean };

/** What `create` reads besides its options (the real process unless a test says otherwise). */
export type UserDeps = {
  io: Io;
  env?: NodeJS.ProcessEnv;
  stdin?: NodeJS.ReadStream;
};

const EXIT_INTERRUPTED = 130;

const emailSchema = z.email();

/** Checked here, not as --email is parsed: zod loads only for this command (program.ts). */
function checkedEmail(value: string): string {
  const email = value.trim();
  if (!emailSchema.safeParse(email).success) throw new UsageError(`option '--email <email>' argument '${safeLine(value)}' is invalid. expected an email address, e.g. alice@example.com`);
  return email;
}

/** Reads a line from the terminal without echoing it. */
function promptHidden(question: string, io: Io, stdin: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let value = "";
    const wasRaw = stdin.isRaw;
    const finish = (error?: Error) => {
      stdin.removeListener("data", onData);
      stdin.setRawMode(wasRaw);
      stdin.pause();
      io.err("\n");
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === "\r" || ch === "\n") return finish();
        if (ch === "\u0003") return finish(new CliError("Cancelled", EXIT_INTERRUPTED)); // Ctrl+C
        if (ch === "\u0004") return finish(value ? undefined : new InputError("No password given")); // Ctrl+D
        if (ch === "\u007f" || ch === "\b") value = Array.from(value).slice(0, -1).join("");
        else if (ch >= " ") value += ch;
      }
    };
    io.err(question);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onData);
  });
}

/** --password, else $SIGHTDESK_USER_PASSWORD, else asked twice on a terminal; else a usage error. */
async function choosePassword(opts: CreateOptions, deps: UserDeps): Promise<string> {
  if (opts.password !== undefined) return opts.password;
  const env = deps.env ?? process.env;
  const fromEnv = env[PASSWORD_ENV];
  if (fromEnv) return fromEnv;
  const stdin = deps.stdin ?? process.stdin;
  if (!stdin.isTTY || typeof stdin.setRawMode !== "function") {
    throw new UsageError(`No password: pass --password, set ${PASSWORD_ENV}, or run on a terminal to be asked for one`);
  }
  const first = await promptHidden(`Password for ${safeLine(opts.email)} (at least ${MIN_PASSWORD_LENGTH} characters): `, deps.io, stdin);
  if (first.length < MIN_PASSWORD_LENGTH) throw new InputError(`The password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  const again = await promptHidden("Repeat the password: ", deps.io, stdin);
  if (again !== first) throw new InputError("The passwords do not match");
  return first;
}

/**
 * The folder with prisma.config.ts and the Prisma CLI: `migrate()` runs `prisma migrate deploy`
 * from the working directory, which may be anywhere when `sightdesk` is called.
 */
function packageRoot(): string | null {
  const starts = [process.cwd()];
  try {
    starts.push(fileURLToPath(new URL(".", import.meta.url)));
  } catch {
    /* not an ES module here: the working directory must do */
  }
  for (const start of starts) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      if (fs.existsSync(path.join(dir, "prisma.config.ts")) && fs.existsSync(path.join(dir, "node_modules", "prisma", "build", "index.js"))) return dir;
      if (path.dirname(dir) === dir) break;
    }
  }
  return null;
}

/** Whether every committed migration is applied already (then the Prisma CLI need not run). */
async function upToDate(url: string, root: string | null): Promise<boolean> {
  if (!root) return false;
  let wanted: string[];
  try {
    wanted = fs.readdirSync(path.join(root, PRISMA_FILES[providerOf(url)].migrations), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return false;
  }
  if (url.startsWith("file:") && !fs.existsSync(sqliteFilePath(url) ?? "")) return false;
  const db = createDb(url);
  try {
    const rows = await db.$queryRawUnsafe<Array<{ migration_name: string }>>(
      "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL",
    );
    const applied = new Set(rows.map((r) => r.migration_name));
    return wanted.every((m) => applied.has(m));
  } catch {
    return false; // no migrations table yet: a new database
  } finally {
    await db.$disconnect();
  }
}

/**
 * Applies the migrations unless they are all applied already (`prisma migrate deploy` cannot
 * lock a SQLite file a running server has open, and needs not). `migrate()` runs the Prisma CLI
 * from the working directory; called from elsewhere, the same script runs in the package folder.
 */
export async function migrateDatabase(url: string): Promise<void> {
  const root = packageRoot();
  if (await upToDate(url, root)) return;
  if (!root || path.resolve(root) === path.resolve(process.cwd())) {
    await migrate(url);
    return;
  }
  const run = spawnSync(process.execPath, [path.join(root, "node_modules", "tsx", "dist", "cli.mjs"), path.join(root, "scripts", "migrate.ts")], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`Database migration failed: ${run.stderr || run.stdout}`);
}

/** The line of the Prisma CLI's output that says what went wrong (it also prints banners and warnings). */
export function migrationError(message: string): string {
  const lines = message.split("\n").map((l) => safeLine(l).trim()).filter(Boolean);
  const error = lines.find((l) => /^Error\b|Error:/.test(l) && !/^Database migration failed/.test(l)) ?? lines.at(-1) ?? message;
  return error.slice(0, 300);
}

/** Where the users are stored, without credentials (a PostgreSQL URL may carry a password). */
export function describeDatabase(url: string): string {
  const file = sqliteFilePath(url);
  if (file) return file;
  try {
    const u = new URL(url);
    return `${u.protocol.replace(/:$/, "")} database ${u.hostname}${u.pathname}`;
  } catch {
    return "the configured database";
  }
}

export async function create(opts: CreateOptions, deps: UserDeps): Promise<void> {
  const { io } = deps;
  const email = checkedEmail(opts.email);
  const password = await choosePassword(opts, deps);
  if (password.length < MIN_PASSWORD_LENGTH) throw new InputError(`The password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > 1024) throw new InputError("The password may have at most 1024 characters");
  const name = opts.name?.trim() || null;
  if (name && name.length > 100) throw new InputError("--name may have at most 100 characters");

  const url = databaseUrl(); // SIGHTDESK_DATA_DIR / DATABASE_URL, as the server reads them
  try {
    await migrateDatabase(url);
  } catch (e) {
    throw new CliError(`Cannot prepare the database at ${describeDatabase(url)}: ${migrationError((e as Error).message)}`, EXIT_REQUEST);
  }
  const db = createDb(url);
  let user: Awaited<ReturnType<typeof createUser>>;
  try {
    user = await createUser(db, { email, name, role: opts.role, password });
  } catch (e) {
    if (e instanceof DomainError && e.kind === "conflict") throw new CliError(`${e.message}: choose another email, or change the existing user in Settings`, EXIT_REQUEST);
    if (e instanceof DomainError) throw new InputError(e.message);
    throw new CliError(`Cannot write to the database at ${describeDatabase(url)}: ${safeLine((e as Error).message).slice(0, 500)}`, EXIT_REQUEST);
  } finally {
    await db.$disconnect();
  }
  if (opts.json) return line(io.out, stringifyExact(user));
  line(io.out, `Created ${user.role} ${safeLine(user.email)}${user.name ? ` (${safeLine(user.name)})` : ""}, id ${user.id}.`);
  line(io.out, `  database: ${describeDatabase(url)}`);
  line(io.out, "They can sign in to the dashboard with this email and password.");
}
