// Work done once when the server process starts.
import { ensureDashboardToken, dashboardTokenPath } from "../auth/dashboardToken";
import { ensureFirstAdmin } from "../auth/users";
import { db } from "../db/client";
import { secureDataDir } from "../db/privateFiles";
import { startAlertWorker } from "../alerts/worker";
import { config } from "../config/load";
import { startDeadLoopAction } from "../deadloop/action";
import { startSweeps } from "../sweeps/scheduler";
import { trackRequestSockets } from "../proxy/requestSocket";

export async function startup(): Promise<void> {
  // Configuration first: an invalid key stops the server before it touches anything.
  let cfg;
  try {
    cfg = config();
  } catch (e) {
    console.error(`[sightdesk] refusing to start: ${(e as Error).message}`);
    throw e;
  }
  // Requests know their connection, so the mounted proxy can find its caller (SPEC §2.6).
  trackRequestSockets();
  // The data directory 0700 and SightDesk's files in it 0600, before anything is written there.
  secureDataDir();
  const database = db();
  // Per-connection pragmas: WAL writes need only NORMAL sync; wait for a busy writer.
  await database.$queryRawUnsafe("PRAGMA synchronous = NORMAL").catch(() => undefined);
  await ensureDashboardToken(database);
  console.log(`[sightdesk] API token file: ${dashboardTokenPath()}`);
  const admin = await ensureFirstAdmin(database);
  if (admin) console.log(`[sightdesk] created the first admin: ${admin}`);
  startAlertWorker(database);
  startSweeps(database, cfg);
  if (cfg.deadloop.enabled) {
    startDeadLoopAction(database, cfg.deadloop.killAfterCount);
    console.log(`[sightdesk] dead-loop action on: a process is sent SIGTERM after ${cfg.deadloop.killAfterCount} dead-loop detections, SIGKILL on the next`);
  }
}
