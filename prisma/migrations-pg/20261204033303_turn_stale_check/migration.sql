-- AlterTable
ALTER TABLE "Turn" ADD COLUMN     "staleCheckedNs" BIGINT;

-- CreateIndex
CREATE INDEX "Turn_endReason_staleCheckedNs_lastSeenNs_idx" ON "Turn"("endReason", "staleCheckedNs", "lastSeenNs");

