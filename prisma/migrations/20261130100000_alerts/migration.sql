-- CreateTable
CREATE TABLE "Webhook" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "secret" TEXT,
    "minSeverity" TEXT NOT NULL,
    "types" TEXT NOT NULL DEFAULT '[]',
    "agents" TEXT NOT NULL DEFAULT '[]',
    "repeatIntervalSecs" INTEGER NOT NULL DEFAULT 3600,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdBy" TEXT,
    "createdAtNs" BIGINT NOT NULL,
    "updatedAtNs" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "AlertDelivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "webhookId" TEXT NOT NULL,
    "interruptionId" TEXT,
    "fingerprint" TEXT,
    "sourceAtNs" BIGINT,
    "event" TEXT NOT NULL,
    "dedupeKey" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "nextAttemptAtNs" BIGINT NOT NULL,
    "createdAtNs" BIGINT NOT NULL,
    "deliveredAtNs" BIGINT,
    "payload" TEXT NOT NULL
);

-- CreateIndex
CREATE INDEX "AlertDelivery_status_nextAttemptAtNs_idx" ON "AlertDelivery"("status", "nextAttemptAtNs");

-- CreateIndex
CREATE INDEX "AlertDelivery_webhookId_createdAtNs_idx" ON "AlertDelivery"("webhookId", "createdAtNs");

-- CreateIndex
CREATE INDEX "AlertDelivery_webhookId_fingerprint_sourceAtNs_idx" ON "AlertDelivery"("webhookId", "fingerprint", "sourceAtNs");

-- CreateIndex
CREATE INDEX "AlertDelivery_createdAtNs_idx" ON "AlertDelivery"("createdAtNs");

-- CreateIndex
CREATE UNIQUE INDEX "AlertDelivery_webhookId_dedupeKey_key" ON "AlertDelivery"("webhookId", "dedupeKey");

-- CreateIndex
CREATE INDEX "Interruption_createdAtNs_idx" ON "Interruption"("createdAtNs");

