-- AlterTable
ALTER TABLE "User" ADD COLUMN     "oidcSubject" TEXT,
ADD COLUMN     "sessionVersion" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "RemovedUser" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "oidcSubject" TEXT,
    "removedAtNs" BIGINT NOT NULL,

    CONSTRAINT "RemovedUser_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LoginAttempt" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "atNs" BIGINT NOT NULL,
    "cleared" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "LoginAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RemovedUser_email_idx" ON "RemovedUser"("email");

-- CreateIndex
CREATE INDEX "RemovedUser_oidcSubject_idx" ON "RemovedUser"("oidcSubject");

-- CreateIndex
CREATE INDEX "LoginAttempt_email_atNs_idx" ON "LoginAttempt"("email", "atNs");

-- CreateIndex
CREATE INDEX "LoginAttempt_address_atNs_idx" ON "LoginAttempt"("address", "atNs");

-- CreateIndex
CREATE INDEX "LoginAttempt_atNs_idx" ON "LoginAttempt"("atNs");

-- CreateIndex
CREATE UNIQUE INDEX "User_oidcSubject_key" ON "User"("oidcSubject");

