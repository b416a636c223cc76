#!/usr/bin/env node
// `sightdesk`: runs the TypeScript CLI (lib/cli/main.ts) through tsx, so `npx sightdesk …`
// works from the repository without a build. Arguments and the exit code pass straight through.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { PROXY_HEAP_FLAGS } from "./proxyHeap.mjs";

const require = createRequire(import.meta.url);
const { version } = require("../package.json");

// Quietly end on a closed pipe (`sightdesk interruption list | head`).
process.stdout.on("error", (e) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});

// `proxy` needs V8 heap settings that can only be given when a process starts (proxyHeap.mjs):
// started without them, this process runs the proxy as a child that has them and passes
// signals (SIGTERM, SIGHUP, SIGINT as SIGTERM) and the exit code through.
if (commandOf(process.argv.slice(2)) === "proxy" && !PROXY_HEAP_FLAGS.every((f) => process.execArgv.includes(f))) {
  const child = spawn(process.execPath, [...process.execArgv, ...PROXY_HEAP_FLAGS, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, SIGHTDESK_PROXY_PARENT: String(process.pid) },
  });
  // SIGINT goes on as SIGTERM: a terminal's Ctrl-C reaches the child too, and the child stops on
  // the first of each (a second SIGINT, a second Ctrl-C, stops it at once); a SIGINT sent to this
  // process alone (a supervisor's, a script's) would otherwise leave the child running
  process.on("SIGINT", () => child.kill("SIGTERM"));
  for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
} else {
  await run();
}

/** The command named on the command line (after the global options and their values). */
function commandOf(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--url" || args[i] === "--token") i++;
    else if (!args[i].startsWith("-")) return args[i];
  }
  return undefined;
}

async function run() {
  // tsx's require hook, as the ingest worker loads it: its compile cache is reused from run to
  // run (`tsImport` compiled every module again each time: about a second per command)
  require("tsx/cjs");
  const cli = require("../lib/cli/main.ts");
  const main = cli.main ?? cli.default?.main;
  process.exitCode = await main(process.argv.slice(2), { version });
}
