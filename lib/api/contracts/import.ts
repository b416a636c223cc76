// Importing AgentSight's stores over the API (SPEC §2.5): the upload equivalent of
// `sightdesk import agentsight <dir>`.
import { z } from "zod";
import { contract } from "../contract";

const tag = "import";
const n = z.int().nonnegative();

const sqliteFile = (file: string, table: string) =>
  z.file().optional().describe(`AgentSight's ${file}: a SQLite database with the table ${table}`);

export const importStatsSchema = z.object({
  calls: z.object({
    imported: n, present: n.describe("already stored (same call_id)"), skipped: n.describe("rows that could not be imported (see problems)"),
    pending: n.describe("rows still pending in AgentSight: not imported"),
  }),
  interruptions: z.object({ imported: n, present: n, skipped: n, resolved: n.describe("of the imported ones, resolved in AgentSight") }),
  sessions: z.object({ imported: n.describe("sessions that are new"), present: n.describe("sessions known before") }),
  detected: n.describe("interruptions SightDesk's own detection created for the imported calls"),
  problems: z.array(z.string()).describe("why rows were skipped (the first few)"),
});

export const importAgentSight = contract({
  method: "POST", path: "/api/import/agentsight", tag, scope: "admin", bodyType: "multipart",
  body: z
    .strictObject({
      genai_events: sqliteFile("genai_events.db", "genai_events"),
      interruption_events: sqliteFile("interruption_events.db", "interruption_events"),
    })
    .refine((b) => b.genai_events || b.interruption_events, {
      message: "Send the file genai_events and/or interruption_events (AgentSight's SQLite files) as multipart/form-data",
    }),
  response: importStatsSchema,
  summary:
    "Import AgentSight's genai_events.db and/or interruption_events.db (multipart/form-data; 413 over SIGHTDESK_MAX_UPLOAD_BYTES, default 200 MiB). " +
    "Both files are checked before anything is imported; ids, types, severities and resolved flags are kept; importing the same data again is a no-op.",
});
