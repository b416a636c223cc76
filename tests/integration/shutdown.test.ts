// A server asked to stop (SIGTERM: a rolling restart, a supervisor) hands the background work it
// holds to the other processes at once: the alert scan's lease is given up, not left to expire.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { SCAN_LEASE } from "@/lib/alerts/worker";
import { startServer, type TestServer } from "./support/server";
import { waitFor } from "../support/waitFor";

let server: TestServer;
let db: Db;

beforeAll(async () => {
  server = await startServer();
  db = createDb(server.databaseUrl);
});

afterAll(async () => {
  await db?.$disconnect();
  await server?.stop();
});

describe("SIGTERM", () => {
  it("gives the alert scan's lease up before the process exits", async () => {
    // every process takes the scan lease at its alert worker's first tick (once a second)
    const held = await waitFor("the server's alert scan lease", () => db.lease.findUnique({ where: { name: SCAN_LEASE } }));
    expect(held.expiresAtNs).toBeGreaterThan(BigInt(Date.now()) * 1_000_000n);
    await server.kill("SIGTERM");
    expect(await db.lease.findUnique({ where: { name: SCAN_LEASE } })).toBeNull();
  });
});
