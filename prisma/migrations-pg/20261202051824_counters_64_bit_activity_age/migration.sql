-- AlterTable
ALTER TABLE "IngestSource" ALTER COLUMN "calls" SET DATA TYPE BIGINT;

-- AlterTable
ALTER TABLE "Session" ALTER COLUMN "inputTokens" SET DATA TYPE BIGINT,
ALTER COLUMN "outputTokens" SET DATA TYPE BIGINT;

-- CreateIndex
CREATE INDEX "InterruptionActivity_atNs_idx" ON "InterruptionActivity"("atNs");

