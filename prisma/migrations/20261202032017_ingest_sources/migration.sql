-- CreateTable
CREATE TABLE "IngestSource" (
    "source" TEXT NOT NULL,
    "agentName" TEXT NOT NULL,
    "lastSeenNs" BIGINT NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("source", "agentName")
);

