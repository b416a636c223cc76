-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "rateThreshold" INTEGER,
ADD COLUMN     "rateWindowSecs" INTEGER,
ADD COLUMN     "routingKey" TEXT,
ADD COLUMN     "rule" TEXT;

-- CreateTable
CREATE TABLE "AlertRuleState" (
    "webhookId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "seq" INTEGER NOT NULL DEFAULT 0,
    "firedCount" INTEGER NOT NULL DEFAULT 0,
    "resolvedCount" INTEGER NOT NULL DEFAULT 0,
    "firedAtNs" BIGINT,
    "resolvedAtNs" BIGINT,

    CONSTRAINT "AlertRuleState_pkey" PRIMARY KEY ("webhookId","key")
);

-- CreateIndex
CREATE INDEX "AlertRuleState_webhookId_state_idx" ON "AlertRuleState"("webhookId", "state");

