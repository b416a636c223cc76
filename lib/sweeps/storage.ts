// What the size cap measures and how it gives space back, per database (used by sweep.ts).
//   SQLite: the file plus its WAL; live bytes = pages in use; VACUUM returns free pages to the
//     file system (it rewrites the file and holds the write lock while it does).
//   PostgreSQL: the bytes SightDesk's data occupies (postgresSpace.ts), so space that a plain
//     VACUUM made reusable counts as free; after deletes, a plain VACUUM of the tables that lost
//     rows — no VACUUM FULL, no table rewrite, no lock that stops ingest. The files keep their
//     size and new rows fill the freed space.
import fs from "node:fs";
import { quote } from "../db/multiRow";
import type { Db } from "../db/client";
import { dialectOf } from "../db/sql";
import { occupiedByRows, occupiedBytes, POSTGRES_TABLES_SQL, toTableSpace } from "./postgresSpace";

/** Rows deleted per table (Prisma model names, e.g. "Call"). */
export type Deleted = Record<string, number>;

export interface StorageMeter {
  /** Bytes the cap is compared with. */
  bytes(): Promise<number>;
  /** Called once before trimming, when the cap is exceeded. */
  prepare(): Promise<void>;
  /** Bytes live rows would occupy once `deleted` is reclaimed. */
  liveBytes(deleted: Deleted): Promise<number>;
  /** Makes the space of rows the size cap deleted free (SQLite: back to the file system); with none deleted, whatever the measure still counts. */
  reclaim(deleted: Deleted): Promise<void>;
  /**
   * Makes the space of rows deleted by retention count as free before the cap is checked:
   * PostgreSQL vacuums those tables; SQLite needs nothing (free pages count as free already).
   */
  release(deleted: Deleted): Promise<void>;
}

const statSize = (file: string) => {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
};

/** Bytes on disk of a SQLite database: the file and its write-ahead log. */
export const diskBytes = (file: string) => statSize(file) + statSize(`${file}-wal`);

const pragmaNumber = async (db: Db, pragma: string) => Number(Object.values((await db.$queryRawUnsafe<Record<string, unknown>[]>(`PRAGMA ${pragma}`))[0])[0]);

async function sqliteMeter(db: Db): Promise<StorageMeter | null> {
  const list = await db.$queryRawUnsafe<{ name: string; file: string }[]>("PRAGMA database_list");
  const file = list.find((d) => d.name === "main")?.file;
  if (!file) return null; // in-memory
  const pageSize = await pragmaNumber(db, "page_size");
  const checkpoint = () => db.$queryRawUnsafe("PRAGMA wal_checkpoint(TRUNCATE)").catch(() => undefined);
  return {
    bytes: async () => diskBytes(file),
    prepare: async () => void (await checkpoint()), // a large WAL alone may be what is over the cap
    liveBytes: async () => ((await pragmaNumber(db, "page_count")) - (await pragmaNumber(db, "freelist_count"))) * pageSize,
    reclaim: async () => {
      await checkpoint();
      await db.$executeRawUnsafe("VACUUM");
      await checkpoint();
    },
    release: async () => undefined,
  };
}

const postgresTables = async (db: Db) => (await db.$queryRawUnsafe<Record<string, unknown>[]>(POSTGRES_TABLES_SQL)).map(toTableSpace);

function postgresMeter(db: Db): StorageMeter {
  let before: { name: string; occupied: number; rows: number }[] = [];
  /**
   * A plain VACUUM (never FULL): it takes no lock that conflicts with reads or writes and rewrites
   * nothing. TRUNCATE false: handing empty trailing pages back would need a brief exclusive lock.
   * ANALYZE only for a table without column statistics yet (the occupied size needs them).
   */
  const vacuum = async (deleted: Deleted) => {
    const analyzed = new Set((await postgresTables(db)).filter((t) => t.width !== null).map((t) => t.name));
    for (const [table, n] of Object.entries(deleted)) {
      if (n > 0) await db.$executeRawUnsafe(`VACUUM (TRUNCATE false${analyzed.has(table) ? "" : ", ANALYZE"}) ${quote(table)}`);
    }
  };
  /**
   * Over the cap with nothing deleted: what the measure counts that the rows do not — dead
   * versions of updated rows, statistics not refreshed yet — goes with a VACUUM (ANALYZE) of every
   * table. Else each sweep would measure the same, over the cap, until autovacuum came by.
   */
  const reclaim = async (deleted: Deleted) => {
    if (Object.values(deleted).some((n) => n > 0)) return vacuum(deleted);
    for (const t of await postgresTables(db)) await db.$executeRawUnsafe(`VACUUM (TRUNCATE false, ANALYZE) ${quote(t.name)}`);
  };
  return {
    bytes: async () => (await postgresTables(db)).reduce((sum, t) => sum + occupiedBytes(t), 0),
    // Rows counted exactly: the statistics' counts lag seconds behind the writes (and start from
    // zero after a crash), and a count of zero here would make deletes look as if they freed nothing.
    prepare: async () => {
      const tables = await postgresTables(db);
      const counts = tables.map((t, i) => `(SELECT count(*) FROM ${quote(t.name)}) AS "${i}"`);
      const [rows] = tables.length ? await db.$queryRawUnsafe<Record<string, unknown>[]>(`SELECT ${counts.join(", ")}`) : [{}];
      // occupied by the rows counted, not by the statistics' tuples: those lag, and a deleting
      // backend's late report can leave them at the deleted rows' count — a trim that trusted them
      // would take the newest data too
      before = tables.map((t, i) => {
        const exact = Number(rows[String(i)]);
        return { name: t.name, occupied: occupiedByRows(t, exact), rows: exact };
      });
    },
    // deleted rows take their table's average share of its occupied bytes with them
    liveBytes: async (deleted) =>
      before.reduce((sum, t) => sum + (t.rows > 0 ? (t.occupied * Math.max(0, t.rows - (deleted[t.name] ?? 0))) / t.rows : t.occupied), 0),
    reclaim,
    release: vacuum,
  };
}

/** Share of the cap the SQLite write-ahead log may take between checkpoints. */
const WAL_SHARE = 0.05;
const MAX_WAL_PAGES = 4000; // lib/db/client.ts's setting for ingest speed, kept when the cap allows

/**
 * Keeps a SQLite WAL small beside the cap: the WAL counts toward the size, and between two sweeps
 * it grows to the autocheckpoint size (16 MB at 4,000 pages) — most of a small cap by itself.
 * Checkpoints come every `WAL_SHARE` of the cap and the file is truncated back to that size.
 * Returns the pages per checkpoint, or null on PostgreSQL.
 */
export async function boundWal(db: Db, maxDbSizeMb: number): Promise<number | null> {
  if (dialectOf(db) !== "sqlite") return null;
  const budget = Math.floor(maxDbSizeMb * 1024 * 1024 * WAL_SHARE);
  const pages = Math.max(100, Math.min(MAX_WAL_PAGES, Math.floor(budget / (await pragmaNumber(db, "page_size")))));
  await db.$queryRawUnsafe(`PRAGMA wal_autocheckpoint = ${pages}`);
  await db.$queryRawUnsafe(`PRAGMA journal_size_limit = ${budget}`);
  return pages;
}

/** The meter for the database behind `db`; null when it has no size to cap (in-memory SQLite). */
export async function storageMeter(db: Db): Promise<StorageMeter | null> {
  return dialectOf(db) === "postgres" ? postgresMeter(db) : sqliteMeter(db);
}
