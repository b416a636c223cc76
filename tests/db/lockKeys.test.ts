// lockKeys on PostgreSQL (TEST_DATABASE_URL): advisory locks, one statement for all keys,
// held to the end of the transaction. A transaction that shares a key with another waits for
// it; one with other keys does not. (SQLite runs one writing transaction at a time: nothing to lock.)
import { describe, expect, it } from "vitest";
import { lockKeys, sqlTransaction, transaction } from "@/lib/db/sql";
import { testPostgresUrl } from "../support/database";
import { waitingAdvisoryLocks } from "../support/advisoryLocks";
import { eventually } from "../support/waitFor";
import { useTestDb } from "../support/testDb";

const db = useTestDb("locks");

const waiting = () => waitingAdvisoryLocks(db());

describe.runIf(testPostgresUrl())("lockKeys", () => {
  it("makes a transaction that shares a key wait for the holder's commit; other keys pass", async () => {
    const events: string[] = [];
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let locked = () => {};
    const holderLocked = new Promise<void>((r) => (locked = r));
    const holder = sqlTransaction(db(), async (sql) => {
      await lockKeys(sql, ["k2", "k1", "k2"]);
      locked();
      await held;
      events.push("holder commits");
    });
    await holderLocked;
    // other keys: no wait (through Prisma's transaction, as event ingest takes them)
    await transaction(db(), (sql) => lockKeys(sql, ["k3", "k4"]));
    const sharer = sqlTransaction(db(), async (sql) => {
      await lockKeys(sql, ["k9", "k1"]);
      events.push("sharer locked");
    });
    try {
      await eventually("the transaction sharing a key to wait for its lock (advisory locks waited for)", waiting, (n) => n === 1, { timeoutMs: 10_000, everyMs: 20 });
      expect(events).toEqual([]);
    } finally {
      release();
    }
    await Promise.all([holder, sharer]);
    expect(events).toEqual(["holder commits", "sharer locked"]);
    expect(await waiting()).toBe(0);
  });

  it("takes the key for every key alone for a transaction of more than 1,000 keys: any other waits for it, and it for any other", async () => {
    const many = Array.from({ length: 1_001 }, (_, i) => `wide-${i}`);
    const events: string[] = [];
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let locked = () => {};
    const wideLocked = new Promise<void>((r) => (locked = r));
    const wide = sqlTransaction(db(), async (sql) => {
      await lockKeys(sql, many);
      locked();
      await held;
      await lockKeys(sql, ["after"], ["more"]); // held already: nothing more to take
      events.push("wide commits");
    });
    await wideLocked;
    const other = sqlTransaction(db(), async (sql) => {
      await lockKeys(sql, [], ["unrelated"]);
      events.push("other locked");
    });
    try {
      await eventually("a transaction of one unrelated key to wait (advisory locks waited for)", waiting, (n) => n === 1, { timeoutMs: 10_000, everyMs: 20 });
      expect(events).toEqual([]);
    } finally {
      release();
    }
    await Promise.all([wide, other]);
    expect(events).toEqual(["wide commits", "other locked"]);
    // the other way round: a holder of a few keys keeps a wide transaction waiting
    let releaseFew = () => {};
    const fewHeld = new Promise<void>((r) => (releaseFew = r));
    let fewLocked = () => {};
    const few = new Promise<void>((r) => (fewLocked = r));
    const holder = sqlTransaction(db(), async (sql) => {
      await lockKeys(sql, ["k-few"]);
      fewLocked();
      await fewHeld;
    });
    await few;
    const wideAgain = sqlTransaction(db(), (sql) => lockKeys(sql, many));
    try {
      await eventually("the wide transaction to wait", waiting, (n) => n === 1, { timeoutMs: 10_000, everyMs: 20 });
    } finally {
      releaseFew();
    }
    await Promise.all([holder, wideAgain]);
    expect(await waiting()).toBe(0);
  });
});
