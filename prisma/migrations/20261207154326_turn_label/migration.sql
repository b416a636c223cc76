-- AlterTable
ALTER TABLE "Turn" ADD COLUMN "label" TEXT;

