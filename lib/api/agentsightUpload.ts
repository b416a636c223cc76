// POST /api/import/agentsight (SPEC §2.5): AgentSight's SQLite files uploaded instead of read from
// a directory. They are written to a private temporary directory, both checked (SQLite header,
// AgentSight's tables and columns) before anything is imported, imported by the CLI's importer
// into the server's database, and deleted whatever happens.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Db } from "../db/client";
import { AgentSightImporter, type ImportStats } from "../import/agentsight";
import { AgentSightSource, GENAI_FILE, INTERRUPTIONS_FILE, SourceError, type TableName } from "../import/agentsightSource";
import { badRequest } from "./errors";

/** The upload's fields, named after AgentSight's tables, and the file each one is. */
export type AgentSightUpload = Partial<Record<TableName, File>>;
const FILES: Record<TableName, string> = { genai_events: GENAI_FILE, interruption_events: INTERRUPTIONS_FILE };

/** Writes `file` to `target`, readable by this user only. */
async function writeUpload(file: File, target: string): Promise<void> {
  await fs.writeFile(target, Readable.fromWeb(file.stream() as WebReadableStream<Uint8Array>), { mode: 0o600 });
}

/** Opens the uploaded store; an unusable file is a 400 naming its field. */
function openUpload(dir: string): AgentSightSource {
  try {
    return AgentSightSource.open(dir);
  } catch (e) {
    const problem = e instanceof SourceError ? e.problem : undefined;
    if (problem) throw badRequest(`${problem.table}: the file ${problem.reason} (expected AgentSight's ${FILES[problem.table]})`);
    throw e;
  }
}

export async function importAgentSightUpload(db: Db, upload: AgentSightUpload): Promise<ImportStats> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "sightdesk-upload-"));
  try {
    await fs.chmod(dir, 0o700);
    for (const table of Object.keys(FILES) as TableName[]) {
      const file = upload[table];
      if (file) await writeUpload(file, path.join(dir, FILES[table]));
    }
    const source = openUpload(dir);
    try {
      // The copy is gone afterwards: idempotence comes from the ids, not from high-water marks.
      // Pages of 5,000: the server's other requests wait while a page is written.
      return await new AgentSightImporter(source, { kind: "local", db }, { marks: false, interruptionPageSize: 5_000 }).pass();
    } finally {
      source.close();
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
