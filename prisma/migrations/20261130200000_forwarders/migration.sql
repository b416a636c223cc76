-- CreateTable
CREATE TABLE "Forwarder" (
    "host" TEXT NOT NULL PRIMARY KEY,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "registeredBy" TEXT,
    "createdAtNs" BIGINT NOT NULL,
    "lastSeenAtNs" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "TerminateRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sessionId" TEXT NOT NULL,
    "host" TEXT,
    "pid" INTEGER,
    "signal" TEXT NOT NULL,
    "interruptionId" TEXT NOT NULL,
    "detections" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "result" TEXT,
    "forwarderUrl" TEXT,
    "createdAtNs" BIGINT NOT NULL,
    "completedAtNs" BIGINT
);

-- CreateIndex
CREATE UNIQUE INDEX "TerminateRequest_sessionId_signal_key" ON "TerminateRequest"("sessionId", "signal");

