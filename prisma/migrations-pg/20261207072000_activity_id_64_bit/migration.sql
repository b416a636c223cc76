-- InterruptionActivity ids are 64-bit (lib/db/schemaFiles.ts: autoincrement ids are BigInt on
-- PostgreSQL): the sequence first, then the column. The new column type rewrites the table once,
-- holding its lock meanwhile (seconds for millions of rows). On SQLite the ids were 64-bit.
ALTER SEQUENCE "InterruptionActivity_id_seq" AS BIGINT;

-- AlterTable
ALTER TABLE "InterruptionActivity" ALTER COLUMN "id" SET DATA TYPE BIGINT;
