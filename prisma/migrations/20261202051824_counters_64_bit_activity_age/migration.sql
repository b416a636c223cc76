-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_IngestSource" (
    "source" TEXT NOT NULL,
    "agentName" TEXT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL,
    "calls" BIGINT NOT NULL DEFAULT 0,

    PRIMARY KEY ("source", "agentName")
);
INSERT INTO "new_IngestSource" ("agentName", "calls", "lastSeenNs", "source") SELECT "agentName", "calls", "lastSeenNs", "source" FROM "IngestSource";
DROP TABLE "IngestSource";
ALTER TABLE "new_IngestSource" RENAME TO "IngestSource";
CREATE TABLE "new_Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "agentName" TEXT,
    "pid" INTEGER,
    "host" TEXT,
    "processName" TEXT,
    "firstSeenNs" BIGINT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL,
    "callCount" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" BIGINT NOT NULL DEFAULT 0,
    "outputTokens" BIGINT NOT NULL DEFAULT 0,
    "lastModel" TEXT,
    "exitedAtNs" BIGINT,
    "exitCode" INTEGER,
    "exitSignal" TEXT,
    "oom" BOOLEAN
);
INSERT INTO "new_Session" ("agentName", "callCount", "exitCode", "exitSignal", "exitedAtNs", "firstSeenNs", "host", "id", "inputTokens", "lastModel", "lastSeenNs", "oom", "outputTokens", "pid", "processName") SELECT "agentName", "callCount", "exitCode", "exitSignal", "exitedAtNs", "firstSeenNs", "host", "id", "inputTokens", "lastModel", "lastSeenNs", "oom", "outputTokens", "pid", "processName" FROM "Session";
DROP TABLE "Session";
ALTER TABLE "new_Session" RENAME TO "Session";
CREATE INDEX "Session_agentName_lastSeenNs_idx" ON "Session"("agentName", "lastSeenNs");
CREATE INDEX "Session_lastSeenNs_idx" ON "Session"("lastSeenNs");
CREATE INDEX "Session_agentName_pid_host_idx" ON "Session"("agentName", "pid", "host");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "InterruptionActivity_atNs_idx" ON "InterruptionActivity"("atNs");

