// The `sightdesk` CLI entry point (bin/sightdesk.mjs runs it through tsx). Returns the exit
// code: 0 on success, 1 when a request failed, 2 for a usage error or a refused value.
import { type Command, CommanderError } from "commander";
import { SightDeskClient } from "./client";
import { type GlobalOptions, resolveConnection } from "./config";
import type { Context } from "./context";
import { CliError, EXIT_REQUEST, EXIT_USAGE, USAGE_HINT, UsageError } from "./errors";
import { safeLine } from "./format";
import { type Io, line, processIo } from "./io";
import { buildProgram } from "./program";

export type MainOptions = { version?: string; env?: NodeJS.ProcessEnv; io?: Io; now?: () => number };

export async function main(argv: string[], options: MainOptions = {}): Promise<number> {
  const io = options.io ?? processIo;
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const contextFor = (cmd: Command): Context => {
    let client: SightDeskClient | undefined;
    return {
      io,
      now,
      client: () => (client ??= new SightDeskClient(resolveConnection(cmd.optsWithGlobals<GlobalOptions>(), env))),
    };
  };
  const program = buildProgram(contextFor, io, options.version);
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (e) {
    // commander has printed its own message (or the help) already
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : EXIT_USAGE;
    if (e instanceof CliError) {
      line(io.err, `error: ${e.message}`);
      if (e instanceof UsageError) line(io.err, USAGE_HINT);
      return e.exitCode;
    }
    line(io.err, `error: unexpected: ${safeLine(e instanceof Error ? e.message : String(e))}`);
    return EXIT_REQUEST;
  }
}
