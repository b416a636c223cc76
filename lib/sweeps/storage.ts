// What the size cap measures and how it gives space back, per database (used by sweep.ts).
//   SQLite: the file plus its WAL; live bytes = pages in use; VACUUM returns free pages.
//   PostgreSQL: the on-disk size of SightDesk's tables with their indexes and TOAST; live bytes
//   are estimated from each table's share of rows deleted so far; VACUUM FULL of the tables
//   that lost rows returns the space (a short exclusive lock per table — like SQLite's VACUUM,
//   it runs only when the cap was exceeded).
import fs from "node:fs";
import { quote } from "../db/multiRow";
import type { Db } from "../db/client";
import { dialectOf } from "../db/sql";

/** Rows deleted per table (Prisma model names, e.g. "Call"). */
export type Deleted = Record<string, number>;

export interface StorageMeter {
  /** Bytes the cap is compared with. */
  bytes(): Promise<number>;
  /** Called once before trimming, when the cap is exceeded. */
  prepare(): Promise<void>;
  /** Bytes live rows would occupy once `deleted` is reclaimed. */
  liveBytes(deleted: Deleted): Promise<number>;
  /** Gives the space of deleted rows back to the file system. */
  reclaim(deleted: Deleted): Promise<void>;
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
  };
}

/** Each SightDesk table with its on-disk bytes (rows, indexes, TOAST). */
export const POSTGRES_TABLE_SIZES_SQL = `SELECT tablename AS name, pg_total_relation_size(format('%I.%I', schemaname, tablename)::regclass) AS bytes
  FROM pg_tables WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations'`;

function postgresMeter(db: Db): StorageMeter {
  const tableSizes = async () =>
    (await db.$queryRawUnsafe<{ name: string; bytes: unknown }[]>(POSTGRES_TABLE_SIZES_SQL)).map((r) => ({ table: r.name, bytes: Number(r.bytes) }));
  let before: { table: string; bytes: number; rows: number }[] = [];
  return {
    bytes: async () => (await tableSizes()).reduce((sum, t) => sum + t.bytes, 0),
    prepare: async () => {
      before = [];
      for (const t of await tableSizes()) {
        const rows = Number((await db.$queryRawUnsafe<{ n: unknown }[]>(`SELECT count(*) AS n FROM ${quote(t.table)}`))[0].n);
        before.push({ ...t, rows });
      }
    },
    liveBytes: async (deleted) =>
      before.reduce((sum, t) => sum + (t.rows ? (t.bytes * Math.max(0, t.rows - (deleted[t.table] ?? 0))) / t.rows : t.bytes), 0),
    reclaim: async (deleted) => {
      for (const [table, n] of Object.entries(deleted)) if (n > 0) await db.$executeRawUnsafe(`VACUUM FULL ${quote(table)}`);
    },
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
