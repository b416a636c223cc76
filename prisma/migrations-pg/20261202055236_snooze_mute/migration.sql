-- AlterTable
ALTER TABLE "Interruption" ADD COLUMN     "snoozeId" TEXT;

-- CreateTable
CREATE TABLE "Snooze" (
    "id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "fingerprint" TEXT,
    "muteRuleId" TEXT,
    "untilNs" BIGINT,
    "untilOccurrences" INTEGER,
    "occurrences" INTEGER NOT NULL DEFAULT 0,
    "untilEscalates" BOOLEAN NOT NULL DEFAULT false,
    "baselinePerHour" INTEGER,
    "baselineSeverity" TEXT,
    "reason" TEXT,
    "actor" TEXT NOT NULL,
    "createdAtNs" BIGINT NOT NULL,
    "endedAtNs" BIGINT,
    "endReason" TEXT,

    CONSTRAINT "Snooze_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MuteRule" (
    "id" TEXT NOT NULL,
    "fingerprint" TEXT,
    "agentName" TEXT,
    "type" TEXT,
    "reason" TEXT,
    "expiresAtNs" BIGINT,
    "createdBy" TEXT NOT NULL,
    "createdAtNs" BIGINT NOT NULL,

    CONSTRAINT "MuteRule_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Snooze_endedAtNs_fingerprint_idx" ON "Snooze"("endedAtNs", "fingerprint");

-- CreateIndex
CREATE INDEX "Snooze_endedAtNs_untilNs_idx" ON "Snooze"("endedAtNs", "untilNs");

-- CreateIndex
CREATE INDEX "Snooze_muteRuleId_idx" ON "Snooze"("muteRuleId");

-- CreateIndex
CREATE INDEX "Interruption_snoozeId_idx" ON "Interruption"("snoozeId");

