-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "Agent" (
    "name" TEXT NOT NULL,
    "firstSeenNs" BIGINT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL,

    CONSTRAINT "Agent_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL,
    "agentName" TEXT,
    "pid" INTEGER,
    "host" TEXT,
    "processName" TEXT,
    "firstSeenNs" BIGINT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL,
    "callCount" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "lastModel" TEXT,
    "exitedAtNs" BIGINT,
    "exitCode" INTEGER,
    "exitSignal" TEXT,
    "oom" BOOLEAN,

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Conversation" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT,
    "firstSeenNs" BIGINT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL,
    "callCount" INTEGER NOT NULL DEFAULT 0,
    "brickedSinceCallId" TEXT,
    "detectState" TEXT NOT NULL DEFAULT '{}',

    CONSTRAINT "Conversation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Turn" (
    "id" TEXT NOT NULL,
    "conversationId" TEXT,
    "sessionId" TEXT,
    "firstSeenNs" BIGINT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL,
    "callCount" INTEGER NOT NULL DEFAULT 0,
    "endReason" TEXT,
    "endedAtNs" BIGINT,
    "finalEventId" TEXT,

    CONSTRAINT "Turn_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Call" (
    "id" TEXT NOT NULL,
    "traceId" TEXT,
    "sessionId" TEXT,
    "conversationId" TEXT,
    "turnId" TEXT,
    "agentName" TEXT,
    "provider" TEXT,
    "model" TEXT,
    "serverAddress" TEXT,
    "startNs" BIGINT NOT NULL,
    "endNs" BIGINT,
    "durationNs" BIGINT,
    "statusCode" INTEGER,
    "error" TEXT,
    "responseBody" TEXT,
    "isSse" BOOLEAN,
    "sseEventCount" INTEGER,
    "sseDone" BOOLEAN,
    "cancelled" BOOLEAN NOT NULL DEFAULT false,
    "maxTokens" INTEGER,
    "inputTokens" INTEGER,
    "outputTokens" INTEGER,
    "cacheReadTokens" INTEGER,
    "cacheCreationTokens" INTEGER,
    "finishReasons" TEXT,
    "systemBlobId" TEXT,
    "toolsBlobId" TEXT,
    "inputTailId" TEXT,
    "inputCount" INTEGER NOT NULL DEFAULT 0,
    "outputTailId" TEXT,
    "outputCount" INTEGER NOT NULL DEFAULT 0,
    "balance" TEXT,
    "extra" TEXT,

    CONSTRAINT "Call_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Message" (
    "id" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "parentId" TEXT,
    "seq" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "parts" TEXT NOT NULL,

    CONSTRAINT "Message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Blob" (
    "id" TEXT NOT NULL,
    "content" TEXT NOT NULL,

    CONSTRAINT "Blob_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ToolCall" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT,
    "conversationId" TEXT,
    "callId" TEXT,
    "toolCallId" TEXT NOT NULL,
    "name" TEXT,
    "arguments" TEXT,
    "response" TEXT,
    "success" BOOLEAN,
    "error" TEXT,
    "durationNs" BIGINT,
    "atNs" BIGINT,

    CONSTRAINT "ToolCall_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Interruption" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT,
    "conversationId" TEXT,
    "turnId" TEXT,
    "callId" TEXT,
    "traceId" TEXT,
    "pid" INTEGER,
    "agentName" TEXT,
    "model" TEXT,
    "type" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "occurredAtNs" BIGINT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL,
    "occurrences" INTEGER NOT NULL DEFAULT 1,
    "detail" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "assignee" TEXT,
    "acknowledgedBy" TEXT,
    "acknowledgedAtNs" BIGINT,
    "resolvedBy" TEXT,
    "resolvedAtNs" BIGINT,
    "resolutionNote" TEXT,
    "createdAtNs" BIGINT NOT NULL,

    CONSTRAINT "Interruption_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InterruptionActivity" (
    "id" SERIAL NOT NULL,
    "interruptionId" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "note" TEXT,
    "atNs" BIGINT NOT NULL,

    CONSTRAINT "InterruptionActivity_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "role" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "createdAtNs" BIGINT NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scopes" TEXT NOT NULL,
    "createdBy" TEXT,
    "createdAtNs" BIGINT NOT NULL,
    "expiresAtNs" BIGINT,
    "lastUsedAtNs" BIGINT,
    "revokedAtNs" BIGINT,

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Webhook" (
    "id" TEXT NOT NULL,
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
    "updatedAtNs" BIGINT NOT NULL,

    CONSTRAINT "Webhook_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AlertDelivery" (
    "id" TEXT NOT NULL,
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
    "payload" TEXT NOT NULL,

    CONSTRAINT "AlertDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Forwarder" (
    "host" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "registeredBy" TEXT,
    "createdAtNs" BIGINT NOT NULL,
    "lastSeenAtNs" BIGINT NOT NULL,

    CONSTRAINT "Forwarder_pkey" PRIMARY KEY ("host")
);

-- CreateTable
CREATE TABLE "TerminateRequest" (
    "id" TEXT NOT NULL,
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
    "completedAtNs" BIGINT,

    CONSTRAINT "TerminateRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Session_agentName_lastSeenNs_idx" ON "Session"("agentName", "lastSeenNs");

-- CreateIndex
CREATE INDEX "Session_lastSeenNs_idx" ON "Session"("lastSeenNs");

-- CreateIndex
CREATE INDEX "Session_agentName_pid_host_idx" ON "Session"("agentName", "pid", "host");

-- CreateIndex
CREATE INDEX "Conversation_sessionId_firstSeenNs_idx" ON "Conversation"("sessionId", "firstSeenNs");

-- CreateIndex
CREATE INDEX "Turn_conversationId_firstSeenNs_idx" ON "Turn"("conversationId", "firstSeenNs");

-- CreateIndex
CREATE INDEX "Turn_sessionId_firstSeenNs_idx" ON "Turn"("sessionId", "firstSeenNs");

-- CreateIndex
CREATE INDEX "Call_conversationId_startNs_idx" ON "Call"("conversationId", "startNs");

-- CreateIndex
CREATE INDEX "Call_sessionId_startNs_idx" ON "Call"("sessionId", "startNs");

-- CreateIndex
CREATE INDEX "Message_conversationId_seq_idx" ON "Message"("conversationId", "seq");

-- CreateIndex
CREATE INDEX "ToolCall_callId_idx" ON "ToolCall"("callId");

-- CreateIndex
CREATE INDEX "Interruption_window_idx" ON "Interruption"("occurredAtNs", "status", "severity", "type", "agentName", "sessionId", "conversationId");

-- CreateIndex
CREATE INDEX "Interruption_agentName_occurredAtNs_idx" ON "Interruption"("agentName", "occurredAtNs");

-- CreateIndex
CREATE INDEX "Interruption_type_occurredAtNs_idx" ON "Interruption"("type", "occurredAtNs");

-- CreateIndex
CREATE INDEX "Interruption_sessionId_occurredAtNs_idx" ON "Interruption"("sessionId", "occurredAtNs");

-- CreateIndex
CREATE INDEX "Interruption_conversationId_occurredAtNs_idx" ON "Interruption"("conversationId", "occurredAtNs");

-- CreateIndex
CREATE INDEX "Interruption_fingerprint_occurredAtNs_idx" ON "Interruption"("fingerprint", "occurredAtNs");

-- CreateIndex
CREATE INDEX "Interruption_createdAtNs_idx" ON "Interruption"("createdAtNs");

-- CreateIndex
CREATE INDEX "InterruptionActivity_interruptionId_atNs_idx" ON "InterruptionActivity"("interruptionId", "atNs");

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_hash_key" ON "ApiToken"("hash");

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
CREATE UNIQUE INDEX "TerminateRequest_sessionId_signal_key" ON "TerminateRequest"("sessionId", "signal");

