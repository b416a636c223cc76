-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN "rateThreshold" INTEGER;
ALTER TABLE "Webhook" ADD COLUMN "rateWindowSecs" INTEGER;
ALTER TABLE "Webhook" ADD COLUMN "routingKey" TEXT;
ALTER TABLE "Webhook" ADD COLUMN "rule" TEXT;

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

    PRIMARY KEY ("webhookId", "key")
);

-- CreateIndex
CREATE INDEX "AlertRuleState_webhookId_state_idx" ON "AlertRuleState"("webhookId", "state");

