-- AlterTable
ALTER TABLE "Forwarder" ADD COLUMN "registeredById" TEXT;

