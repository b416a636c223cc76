// `sightdesk import agentsight <dir>`: imports an AgentSight data directory into the local
// database (SIGHTDESK_DATA_DIR / DATABASE_URL, like the server), or with --url forwards its
// calls to a SightDesk server's ingest API. --follow keeps polling for new rows.
import crypto from "node:crypto";
import path from "node:path";
import type { IngestResult } from "../../ingest/storeCalls";
import { SOURCE_HEADER } from "../../domain/sources";
import { createDb, type Db } from "../../db/client";
import { dialectOf } from "../../db/sql";
import { databaseUrl } from "../../db/url";
import { AgentSightImporter, DeliveryError, follow, type ImportStats, type Sink } from "../../import/agentsight";
import type { WireCall } from "../../import/agentsightMap";
import { AgentSightSource, GENAI_FILE, INTERRUPTIONS_FILE, SourceError } from "../../import/agentsightSource";
import { SightDeskClient } from "../client";
import { type GlobalOptions, resolveConnection } from "../config";
import { CliError, EXIT_REQUEST, InputError, UsageError } from "../errors";
import { safeLine } from "../format";
import { type Io, line } from "../io";
import { RowProgress } from "../progress";
import { describeDatabase, migrateDatabase, migrationError } from "./user";

export type AgentSightOptions = { follow?: boolean; interval: number; json?: boolean; quiet?: boolean };

export type ImportDeps = {
  io: Io;
  /** --url and --token (global options) */
  global: GlobalOptions;
  env?: NodeJS.ProcessEnv;
  /** stops --follow (default: SIGINT / SIGTERM) */
  signal?: AbortSignal;
  /** `sightdesk forward`: calls without a host get this one; `delivered` sees every call the server took */
  forward?: { host: string; delivered: (calls: WireCall[]) => void };
};

function summary(stats: ImportStats, remote: boolean): string[] {
  const c = stats.calls;
  const i = stats.interruptions;
  const out = [`  calls:         ${c.imported} imported, ${c.present} already present, ${c.skipped} skipped${c.pending ? `, ${c.pending} still pending` : ""}`];
  if (remote) out.push("  interruptions: not forwarded (the server runs its own detection on the calls)");
  else {
    out.push(`  interruptions: ${i.imported} imported${i.resolved ? ` (${i.resolved} resolved)` : ""}, ${i.present} already present, ${i.skipped} skipped`);
    out.push(`  sessions:      ${stats.sessions.imported} new, ${stats.sessions.present} already present`);
  }
  out.push(`  detected:      ${stats.detected} new interruption${stats.detected === 1 ? "" : "s"} from SightDesk's own detection on the imported calls`);
  for (const p of stats.problems) out.push(`  skipped: ${safeLine(p)}`);
  return out;
}

export const stamp = () => new Date().toISOString().slice(11, 19);

/**
 * Where an import into a server keeps how far it got, per directory and server: in the data
 * directory (SIGHTDESK_DATA_DIR, as the proxy's spool), so a restarted `forward` or
 * `import --url --follow` goes on from there instead of sending the whole history again.
 */
export function remoteMarkFile(env: NodeJS.ProcessEnv, dir: string, serverUrl: string): string {
  const key = crypto.createHash("sha256").update(`${path.resolve(dir)}\n${serverUrl}`).digest("hex").slice(0, 24);
  return path.resolve(env.SIGHTDESK_DATA_DIR || "./data", "import-marks", `${key}.json`);
}

/** Opens an AgentSight directory; an unusable one is refused input (exit 2). */
export function openSource(dir: string): AgentSightSource {
  try {
    return AgentSightSource.open(dir);
  } catch (e) {
    if (e instanceof SourceError) throw new InputError(e.message);
    throw e;
  }
}

/** A delivery the server refused for good (a rejected token) as the CLI's request error; anything else as it is. */
const asCliError = (e: unknown): unknown => (e instanceof DeliveryError ? new CliError(safeLine(e.message), EXIT_REQUEST) : e);

export async function agentsight(dir: string, opts: AgentSightOptions, deps: ImportDeps): Promise<void> {
  const { io } = deps;
  const env = deps.env ?? process.env;
  const source = openSource(dir);
  let db: Db | null = null;
  try {
    if (!source.genai) line(io.err, `warning: no ${GENAI_FILE} in ${source.dir}: importing interruptions only`);
    let sink: Sink;
    let target: string;
    if (deps.global.url !== undefined) {
      const client = new SightDeskClient(resolveConnection(deps.global, env));
      target = client.url;
      sink = {
        kind: "remote",
        postCalls: async (calls: WireCall[]) => {
          const forward = deps.forward;
          if (forward) calls = calls.map((c) => (c.host ? c : { ...c, host: forward.host }));
          try {
            const result = (await client.post("/api/ingest/calls", { body: calls, headers: { [SOURCE_HEADER]: "import" } })).value as IngestResult;
            forward?.delivered(calls);
            return result;
          } catch (e) {
            if (e instanceof CliError) throw new DeliveryError(e.message, e.status === 401 || e.status === 403, e.status === 400 || e.status === 413);
            throw e;
          }
        },
      };
      if (!source.genai) throw new UsageError(`Nothing to forward: ${INTERRUPTIONS_FILE} cannot be sent over the ingest API (only calls can; import it locally without --url)`);
    } else {
      // the other commands take the server from $SIGHTDESK_URL; this one only from --url
      if (env.SIGHTDESK_URL?.trim()) line(io.err, "note: $SIGHTDESK_URL is set, but without --url the import goes into the local database; pass --url to send the calls to a server");
      const url = databaseUrl();
      target = describeDatabase(url);
      try {
        await migrateDatabase(url);
      } catch (e) {
        throw new CliError(`Cannot prepare the database at ${target}: ${migrationError((e as Error).message)}`, EXIT_REQUEST);
      }
      db = createDb(url);
      // A large import touches index pages all over the database: a page cache of 512 MiB (the
      // server's is 64) keeps them in memory for a transaction instead of writing them twice,
      // and checkpoints once the WAL holds 256 MiB (the server's 16) copy each page to the
      // database once for several transactions that rewrote it.
      if (dialectOf(db) === "sqlite") {
        await db.$queryRawUnsafe("PRAGMA cache_size = -524288");
        await db.$queryRawUnsafe("PRAGMA wal_autocheckpoint = 65536");
      }
      sink = { kind: "local", db };
    }
    // rows, rate and time left on stderr: drawn in place on a terminal, a line every 10 s in a log
    const progress = new RowProgress(io.err, opts.quiet ? "off" : io.errIsTerminal ? "terminal" : "lines");
    const importer = new AgentSightImporter(source, sink, {
      onProgress: (p) => progress.update(p.table, p.done, p.total),
      ...(sink.kind === "remote" ? { markFile: remoteMarkFile(env, source.dir, target) } : {}),
    });
    const remote = sink.kind === "remote";

    if (!opts.follow) {
      let stats: ImportStats;
      try {
        stats = await importer.pass();
      } catch (e) {
        throw asCliError(e);
      } finally {
        progress.finish();
      }
      if (opts.json) return line(io.out, JSON.stringify(stats));
      line(io.out, `Imported AgentSight data from ${safeLine(source.dir)} ${remote ? "to" : "into"} ${safeLine(target)}:`);
      for (const l of summary(stats, remote)) line(io.out, l);
      return;
    }

    const controller = new AbortController();
    const stop = () => {
      if (!controller.signal.aborted) line(io.err, "stopping after the batch under way…");
      controller.abort();
    };
    const signal = deps.signal ?? controller.signal;
    if (!deps.signal) {
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    }
    line(io.err, `Following ${safeLine(source.dir)} every ${opts.interval} s, ${remote ? "forwarding calls to" : "importing into"} ${safeLine(target)} (Ctrl+C stops)`);
    try {
      const total = await follow(importer, {
        intervalMs: opts.interval * 1000,
        signal,
        onPass: (stats, error) => {
          progress.finish();
          if (error) return line(io.err, `${stamp()} error: ${safeLine(error.message)} (retrying in ${opts.interval} s)`);
          if (!stats) return;
          const moved = stats.calls.imported + stats.calls.present + stats.calls.skipped + stats.interruptions.imported + stats.interruptions.skipped;
          if (!moved) return;
          if (opts.json) return line(io.out, JSON.stringify(stats));
          line(
            io.out,
            `${stamp()} +${stats.calls.imported} calls (${stats.calls.present} present, ${stats.calls.skipped} skipped)` +
              (remote ? "" : `, +${stats.interruptions.imported} interruptions`) +
              `, ${stats.detected} detected`,
          );
          for (const p of stats.problems) line(io.err, `  skipped: ${safeLine(p)}`);
        },
      });
      if (!opts.json) {
        line(io.out, `Stopped following ${safeLine(source.dir)}. In total:`);
        for (const l of summary({ ...total, problems: [] }, remote)) line(io.out, l);
      }
    } catch (e) {
      throw asCliError(e); // a token the server refuses ends following: said as the error it is
    } finally {
      process.removeListener("SIGINT", stop);
      process.removeListener("SIGTERM", stop);
    }
  } finally {
    source.close();
    await db?.$disconnect();
  }
}
