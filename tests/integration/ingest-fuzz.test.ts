// Property-based fuzzing of the three ingest routes against the real server and database
// (SQLite, or PostgreSQL with TEST_DATABASE_URL). Generated and mutated payloads
// (tests/integration/support/fuzz.ts) must get a 2xx or a 4xx — never a 5xx, never a hang —
// a rejected batch must write nothing, an accepted call must be readable, and the server must
// stay healthy. The seed is fixed; a failure prints it and the path (fast-check), and
// FUZZ_SHRINK=1 shrinks the counterexample (off by default: each try is a real request).
// FUZZ_RUNS and FUZZ_SEED change the number of cases per property and the seed, for longer hunts.
import Database from "better-sqlite3";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encode, Raw, requestBodyOf, validCall, validEvent, validExchange } from "./support/fuzz";
import { startServer, type TestServer } from "./support/server";

const SEED = Number(process.env.FUZZ_SEED) || 20261202;
const RUNS = Number(process.env.FUZZ_RUNS) || 150;
const TIMEOUT_MS = 10_000;

/** Tables only ingest writes (the sweeps, which could add interruptions, are kept from running). */
const TABLES = ["Agent", "Session", "Conversation", "Turn", "Call", "Message", "Blob", "ToolCall"];
const COUNT_SQL = `SELECT ${TABLES.map((t) => `(SELECT COUNT(*) FROM "${t}") AS "${t}"`).join(", ")}`;

let server: TestServer;
let counts: () => Promise<Record<string, number>>;
let closeDb: () => Promise<void> = async () => undefined;
let nonce = 0;

beforeAll(async () => {
  server = await startServer({ SIGHTDESK_CHECK_INTERVAL_SECS: "86400" });
  if (server.dbFile) {
    const sqlite = new Database(server.dbFile, { readonly: true, fileMustExist: true });
    const statement = sqlite.prepare(COUNT_SQL);
    counts = async () => statement.get() as Record<string, number>;
    closeDb = async () => void sqlite.close();
  } else {
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    counts = async () => {
      const row = (await client.query(COUNT_SQL)).rows[0] as Record<string, string>;
      return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
    };
    closeDb = () => client.end();
  }
});
afterAll(async () => {
  await closeDb();
  await server?.stop();
});

/** `value` with every string that starts with "fz-" made unique to this case (duplicates within it stay duplicates). */
function uniquify(value: unknown, suffix: string): unknown {
  if (typeof value === "string") return value.startsWith("fz-") ? `${value}.${suffix}` : value;
  if (value === null || typeof value !== "object" || value instanceof Raw) return value;
  if (Array.isArray(value)) return value.map((v) => uniquify(v, suffix));
  const copy: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    Object.defineProperty(copy, k, { value: uniquify((value as Record<string, unknown>)[k], suffix), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** The "fz-" call ids of a batch's items (one object or an array). */
function callIds(payload: unknown): string[] {
  const items = Array.isArray(payload) ? payload : [payload];
  return items
    .map((item) => (item !== null && typeof item === "object" ? (item as Record<string, unknown>).call_id : undefined))
    .filter((id): id is string => typeof id === "string" && id.startsWith("fz-"));
}

const clip = (s: string, n = 400) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

/** The server's last error, for a failure report. */
function lastServerError(): string {
  const log = server.log();
  const at = log.lastIndexOf("[api] unhandled error");
  return at < 0 ? "(no unhandled error logged)" : clip(log.slice(at), 1500);
}

async function send(route: string, body: string | Uint8Array, contentType: string | null): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${server.token}` };
  if (contentType) headers["content-type"] = contentType;
  try {
    const res = await fetch(`${server.url}${route}`, { method: "POST", headers, body: typeof body === "string" ? body : new Uint8Array(body), signal: AbortSignal.timeout(TIMEOUT_MS) });
    return { status: res.status, text: await res.text() };
  } catch (e) {
    throw new Error(`POST ${route}: no answer within ${TIMEOUT_MS} ms (${(e as Error).message})`);
  }
}

async function get(route: string): Promise<number> {
  const res = await fetch(`${server.url}${route}`, { headers: { authorization: `Bearer ${server.token}` }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  await res.arrayBuffer();
  return res.status;
}

type Case = { payload: unknown; mutate: { label: string; apply: (t: string) => string | Uint8Array }; contentType: string | null };

/** One request and the properties every answer must have. */
async function check(route: string, c: Case, readsCalls: boolean, seen: Map<number, number>): Promise<void> {
  const payload = uniquify(c.payload, `${process.pid}-${++nonce}`);
  const body = c.mutate.apply(encode(payload));
  const before = await counts();
  const res = await send(route, body, c.contentType);
  seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
  const where = `POST ${route} [${c.mutate.label}, content-type ${c.contentType}] → ${res.status} ${clip(res.text)}\nbody: ${clip(typeof body === "string" ? body : Buffer.from(body).toString("latin1"))}`;

  if (res.status >= 500 || res.status < 200 || (res.status >= 300 && res.status < 400)) throw new Error(`not a 2xx or 4xx: ${where}\nserver: ${lastServerError()}`);
  if (res.status >= 400) {
    const error = (JSON.parse(res.text) as { error?: unknown }).error;
    if (typeof error !== "string" || !error) throw new Error(`a 4xx without {"error": "…"}: ${where}`);
    // an item of a JSON array batch that fails validation is named by its index
    const items = c.mutate.label === "as is" && Array.isArray(payload) ? payload.length : 0;
    const named = /^item (\d+): /.exec(error);
    if (res.status === 400 && items > 0 && items <= 10_000 && !named && !/^Malformed JSON/.test(error)) throw new Error(`a rejected batch item is not named: ${where}`);
    if (named && items > 0 && Number(named[1]) >= items) throw new Error(`item index out of range: ${where}`);
    // nothing of a rejected batch is written
    const after = await counts();
    if (JSON.stringify(after) !== JSON.stringify(before)) throw new Error(`rows changed by a rejected batch: ${JSON.stringify(before)} → ${JSON.stringify(after)}\n${where}`);
    for (const id of callIds(payload)) {
      const status = await get(`/api/calls/${encodeURIComponent(id)}`);
      if (status !== 404) throw new Error(`call ${id} of a rejected batch answers ${status}: ${where}`);
    }
  } else if (readsCalls && c.mutate.label === "as is") {
    // an accepted call is stored and reads back
    for (const id of callIds(payload)) {
      const status = await get(`/api/calls/${encodeURIComponent(id)}`);
      if (status !== 200) throw new Error(`accepted call ${id} answers ${status}: ${where}\nserver: ${lastServerError()}`);
    }
  }
  const health = await get("/api/health");
  if (health !== 200) throw new Error(`/api/health answers ${health} after: ${where}`);
}

async function fuzz(route: string, valid: fc.Arbitrary<unknown>, readsCalls: boolean): Promise<void> {
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(requestBodyOf(valid), (c) => check(route, c, readsCalls, seen)),
    { seed: SEED, numRuns: RUNS, endOnFailure: !process.env.FUZZ_SHRINK },
  );
  // The generators must keep reaching the store, not only the validator.
  const accepted = [...seen].filter(([s]) => s < 300).reduce((n, [, k]) => n + k, 0);
  console.log(`${route}: answers by status ${JSON.stringify(Object.fromEntries(seen))}`);
  expect(accepted, JSON.stringify(Object.fromEntries(seen))).toBeGreaterThanOrEqual(RUNS / 10);
}

describe("fuzzing the ingest routes", () => {
  it("POST /api/ingest/calls answers 2xx/4xx, writes nothing when it rejects, stays healthy", async () => {
    await fuzz("/api/ingest/calls", validCall, true);
  }, 300_000);

  it("POST /api/ingest/http answers 2xx/4xx, writes nothing when it rejects, stays healthy", async () => {
    await fuzz("/api/ingest/http", validExchange, true);
  }, 300_000);

  it("POST /api/ingest/events answers 2xx/4xx, writes nothing when it rejects, stays healthy", async () => {
    await fuzz("/api/ingest/events", validEvent, false);
  }, 300_000);

  it("fully random JSON on every route is a 4xx or a 2xx, never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/api/ingest/calls", "/api/ingest/http", "/api/ingest/events"), fc.jsonValue(), async (route, value) => {
        const res = await send(route, JSON.stringify(value) ?? "", "application/json");
        expect(res.status, `${route} ${clip(JSON.stringify(value))} → ${res.text}`).toBeGreaterThanOrEqual(200);
        expect(res.status, `${route} ${clip(JSON.stringify(value))} → ${res.text}`).toBeLessThan(500);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(await get("/api/health")).toBe(200);
  }, 300_000);
});
