-- CreateTable
CREATE TABLE "SessionOpenCount" (
    "sessionId" TEXT NOT NULL,
    "total" INTEGER NOT NULL,
    "critical" INTEGER NOT NULL,
    "high" INTEGER NOT NULL,
    "medium" INTEGER NOT NULL,
    "low" INTEGER NOT NULL,
    "firstNs" BIGINT NOT NULL,
    "lastNs" BIGINT NOT NULL,
    "entry" TEXT NOT NULL,

    CONSTRAINT "SessionOpenCount_pkey" PRIMARY KEY ("sessionId")
);

-- CreateTable
CREATE TABLE "SessionOpenCell" (
    "sessionId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "SessionOpenCell_pkey" PRIMARY KEY ("sessionId","type","severity")
);

-- CreateIndex
CREATE INDEX "SessionOpenCount_total_critical_high_medium_low_sessionId_idx" ON "SessionOpenCount"("total" DESC, "critical" DESC, "high" DESC, "medium" DESC, "low" DESC, "sessionId");

-- CreateIndex
CREATE INDEX "SessionOpenCount_critical_high_medium_low_total_sessionId_idx" ON "SessionOpenCount"("critical" DESC, "high" DESC, "medium" DESC, "low" DESC, "total" DESC, "sessionId");

-- CreateIndex
CREATE INDEX "SessionOpenCount_total_sessionId_firstNs_lastNs_idx" ON "SessionOpenCount"("total" DESC, "sessionId", "firstNs", "lastNs");

