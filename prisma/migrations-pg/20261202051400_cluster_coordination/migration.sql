-- AlterTable
ALTER TABLE "AlertDelivery" ADD COLUMN     "claimExpiresAtNs" BIGINT,
ADD COLUMN     "claimedBy" TEXT;

-- AlterTable
ALTER TABLE "TerminateRequest" ADD COLUMN     "claimExpiresAtNs" BIGINT,
ADD COLUMN     "claimedBy" TEXT;

-- CreateTable
CREATE TABLE "Lease" (
    "name" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "acquiredAtNs" BIGINT NOT NULL,
    "expiresAtNs" BIGINT NOT NULL,

    CONSTRAINT "Lease_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "SweepRun" (
    "id" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "startedAtNs" BIGINT NOT NULL,
    "finishedAtNs" BIGINT,
    "status" TEXT NOT NULL,
    "result" TEXT,

    CONSTRAINT "SweepRun_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SweepRun_startedAtNs_idx" ON "SweepRun"("startedAtNs");

