// Work done once when the server process starts. Several processes may start at once on one
// database (a rolling restart, `npm run start:cluster`): what they create first (the token row,
// the first admin) tolerates losing that race, and the background work they all start is
// coordinated through the database (leases and claims, lib/coordination).
import { ensureDashboardToken, dashboardTokenPath } from "../auth/dashboardToken";
import { revokeTokensOfLostRights } from "../auth/apiTokens";
import { checkSessionSecretShared } from "../auth/sessionSecret";
import { ensureFirstAdmin } from "../auth/users";
import { db } from "../db/client";
import { secureDataDir } from "../db/privateFiles";
import { startAlertWorker } from "../alerts/worker";
import { config } from "../config/load";
import { startDeadLoopAction } from "../deadloop/action";
import { startSweeps } from "../sweeps/scheduler";
import { processHolder } from "../coordination/holder";
import { withServedRequest } from "../proxy/servedRequest";
import { handleRequestsAround } from "./serverEvents";
import { serveIngestDirectly } from "./directRoutes";
import { keepIdleConnectionsOpen } from "./keepAlive";
import { serveUpgradeRequests } from "./upgrades";
import { onShutdown } from "./shutdown";
import { startIngestWorker } from "../api/ingestOffload";

/** Runs `create` again once when another process created the same row first (unique key). */
async function racing<T>(create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (e) {
    if ((e as { code?: string })?.code !== "P2002") throw e;
    return create();
  }
}

export async function startup(): Promise<void> {
  // Configuration first: an invalid key stops the server before it touches anything.
  let cfg;
  try {
    cfg = config();
  } catch (e) {
    console.error(`[sightdesk] refusing to start: ${(e as Error).message}`);
    throw e;
  }
  // Requests know their connection and their target as sent, so the mounted proxy can find its
  // caller (SPEC §2.6) and pass the query on as the agent wrote it.
  handleRequestsAround((req, next) => withServedRequest(req, next));
  keepIdleConnectionsOpen();
  if (process.env.NODE_ENV === "production") serveUpgradeRequests();
  startIngestWorker();
  // The data directory 0700 and SightDesk's files in it 0600, before anything is written there.
  secureDataDir();
  const database = db();
  // Per-connection pragmas: WAL writes need only NORMAL sync; wait for a busy writer.
  await database.$queryRawUnsafe("PRAGMA synchronous = NORMAL").catch(() => undefined);
  await checkSessionSecretShared(database);
  await racing(() => ensureDashboardToken(database));
  console.log(`[sightdesk] API token file: ${dashboardTokenPath()}`);
  const revoked = await revokeTokensOfLostRights(database);
  if (revoked) console.log(`[sightdesk] revoked ${revoked} API token(s) beyond what their makers' roles allow now`);
  const admin = await racing(() => ensureFirstAdmin(database));
  if (admin) console.log(`[sightdesk] created the first admin: ${admin}`);
  console.log(`[sightdesk] background work shared with other processes on this database as ${processHolder()}`);
  // Ingest requests skip Next.js's request pipeline (the same handlers; lib/server/directRoutes.ts),
  // from when the start is done, as Next's own routes. Not under `next dev` (handlers reload).
  if (process.env.NODE_ENV === "production") serveIngestDirectly();
  const alerts = startAlertWorker(database);
  const sweeper = startSweeps(database, cfg);
  // asked to stop: no sweep starts here any more (one under way ends within the shutdown's
  // grace), the alert scan goes to another process at its next tick instead of when this
  // one's lease would have expired, and the alerts being sent are sent and recorded
  onShutdown(async () => {
    await Promise.all([sweeper.stop(), alerts.shutdown()]);
  });
  if (cfg.deadloop.enabled) {
    startDeadLoopAction(database, cfg.deadloop.killAfterCount);
    console.log(`[sightdesk] dead-loop action on: a process is sent SIGTERM after ${cfg.deadloop.killAfterCount} dead-loop detections, SIGKILL on the next`);
  }
}
