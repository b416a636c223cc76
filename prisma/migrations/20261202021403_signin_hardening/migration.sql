-- CreateTable
CREATE TABLE "RemovedUser" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "oidcSubject" TEXT,
    "removedAtNs" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "LoginAttempt" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "atNs" BIGINT NOT NULL,
    "cleared" BOOLEAN NOT NULL DEFAULT false
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "role" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "createdAtNs" BIGINT NOT NULL,
    "sessionVersion" INTEGER NOT NULL DEFAULT 0,
    "oidcSubject" TEXT
);
INSERT INTO "new_User" ("createdAtNs", "email", "id", "name", "passwordHash", "role") SELECT "createdAtNs", "email", "id", "name", "passwordHash", "role" FROM "User";
DROP TABLE "User";
ALTER TABLE "new_User" RENAME TO "User";
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");
CREATE UNIQUE INDEX "User_oidcSubject_key" ON "User"("oidcSubject");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

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

