#!/usr/bin/env node
// `sightdesk`: runs the TypeScript CLI (lib/cli/main.ts) through tsx, so `npx sightdesk …`
// works from the repository without a build. Arguments and the exit code pass straight through.
import { createRequire } from "node:module";
import { tsImport } from "tsx/esm/api";

const require = createRequire(import.meta.url);
const { version } = require("../package.json");

// Quietly end on a closed pipe (`sightdesk interruption list | head`).
process.stdout.on("error", (e) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});

const cli = await tsImport("../lib/cli/main.ts", import.meta.url);
const main = cli.main ?? cli.default?.main;
process.exitCode = await main(process.argv.slice(2), { version });
