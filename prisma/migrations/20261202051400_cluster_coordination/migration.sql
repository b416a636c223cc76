-- AlterTable
ALTER TABLE "AlertDelivery" ADD COLUMN "claimExpiresAtNs" BIGINT;
ALTER TABLE "AlertDelivery" ADD COLUMN "claimedBy" TEXT;

-- AlterTable
ALTER TABLE "TerminateRequest" ADD COLUMN "claimExpiresAtNs" BIGINT;
ALTER TABLE "TerminateRequest" ADD COLUMN "claimedBy" TEXT;

-- CreateTable
CREATE TABLE "Lease" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "holder" TEXT NOT NULL,
    "acquiredAtNs" BIGINT NOT NULL,
    "expiresAtNs" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "SweepRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "holder" TEXT NOT NULL,
    "startedAtNs" BIGINT NOT NULL,
    "finishedAtNs" BIGINT,
    "status" TEXT NOT NULL,
    "result" TEXT
);

-- CreateIndex
CREATE INDEX "SweepRun_startedAtNs_idx" ON "SweepRun"("startedAtNs");

