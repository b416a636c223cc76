-- AlterTable
ALTER TABLE "Call" ADD COLUMN "recordingTruncated" INTEGER;

