-- CreateTable
CREATE TABLE "SessionOpenCount" (
    "sessionId" TEXT NOT NULL PRIMARY KEY,
    "total" INTEGER NOT NULL,
    "critical" INTEGER NOT NULL,
    "high" INTEGER NOT NULL,
    "medium" INTEGER NOT NULL,
    "low" INTEGER NOT NULL
);

-- CreateIndex
CREATE INDEX "SessionOpenCount_total_critical_high_medium_low_idx" ON "SessionOpenCount"("total" DESC, "critical" DESC, "high" DESC, "medium" DESC, "low" DESC);

-- CreateIndex
CREATE INDEX "SessionOpenCount_critical_high_medium_low_total_idx" ON "SessionOpenCount"("critical" DESC, "high" DESC, "medium" DESC, "low" DESC, "total" DESC);

