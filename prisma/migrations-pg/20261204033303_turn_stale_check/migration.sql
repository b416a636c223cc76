-- AlterTable
ALTER TABLE "Turn" ADD COLUMN IF NOT EXISTS "staleCheckedNs" BIGINT;

-- (its index: the next migration)

-- Turns stale for over a day were judged by the check before this column (it read every stale
-- turn at every sweep): marked judged, so findings it raised and the size cap trimmed stay gone.
UPDATE "Turn" SET "staleCheckedNs" = "lastSeenNs"
 WHERE "endReason" IS NULL AND "lastSeenNs" < (floor(extract(epoch from now())) - 86400)::bigint * 1000000000;
