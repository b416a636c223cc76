// The three ingest routes' handlers (SPEC §2). Next.js serves them from app/api/ingest/*/route.ts,
// and the server also answers them directly, beside Next's request pipeline
// (lib/server/directRoutes.ts): one definition for both.
import * as c from "./contracts/ingest";
import { requestSource, storePrepared } from "./ingest";
import { handleIngest } from "./route";

// `X-SightDesk-Source: import` marks calls an AgentSight import / forwarder sends; anything else is "api".
export const ingestCallsRoute = handleIngest(c.ingestCalls, "calls", ({ req, db, body }) =>
  storePrepared(db, body, requestSource(req, ["import"], "api")),
);

// `X-SightDesk-Source: proxy` marks exchanges the recording proxy captured; anything else is "http".
export const ingestHttpRoute = handleIngest(c.ingestHttp, "http", ({ req, db, body }) =>
  storePrepared(db, body, requestSource(req, ["proxy"], "http")),
);

export const ingestEventsRoute = handleIngest(c.ingestEvents, "events", ({ db, body }) => storePrepared(db, body));

/** POST routes by path, for the direct listener. */
export const INGEST_ROUTES: Readonly<Record<string, typeof ingestCallsRoute>> = {
  "/api/ingest/calls": ingestCallsRoute,
  "/api/ingest/http": ingestHttpRoute,
  "/api/ingest/events": ingestEventsRoute,
};
