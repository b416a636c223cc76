-- CreateTable
CREATE TABLE "SavedView" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "shared" BOOLEAN NOT NULL DEFAULT false,
    "ownerKey" TEXT NOT NULL,
    "ownerName" TEXT NOT NULL,
    "createdAtNs" BIGINT NOT NULL,
    "updatedAtNs" BIGINT NOT NULL,
    "updatedBy" TEXT NOT NULL,

    CONSTRAINT "SavedView_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SavedView_ownerKey_idx" ON "SavedView"("ownerKey");

-- CreateIndex
CREATE INDEX "SavedView_shared_idx" ON "SavedView"("shared");

