// The command line, defined with commander: global options, `interruption …`, `token …` and `user …`.
// import, forward, proxy and user load their code only when they run: it needs the database or
// the proxy, and the commands that only talk HTTP start in a tenth of the time without it.
import { Command, Option } from "commander";
import type { ForwardOptions } from "./commands/forward";
import type { DemoOptions } from "./commands/demo";
import type { AgentSightOptions } from "./commands/import";
import * as interruption from "./commands/interruption";
import type { ProxyOptions } from "./commands/proxy";
import * as snoozer from "./commands/snooze";
import * as token from "./commands/token";
import type { CreateOptions } from "./commands/user";
import type { Context } from "./context";
import { DEFAULT_URL, type GlobalOptions } from "./config";
import type { Io } from "./io";
import { USAGE_HINT } from "./errors";
import {
  DEFAULT_IDLE_TIMEOUT_SECS,
  DEFAULT_INTERVAL_SECS,
  DEFAULT_LISTEN,
  DEFAULT_PROXY_LISTEN,
  DEFAULT_SPOOL_MAX_MB,
  DEFAULT_TIMEOUT_SECS,
  PASSWORD_ENV,
  ROLE_CHOICES,
  collectUpstream,
  parseAdvertise,
  parseTime,
  parseHours,
  parseInterval,
  parseListen,
  parseMegabytes,
  parseNames,
  parseNonEmpty,
  parsePositiveInt,
  parseScopes,
  parseSeconds,
  parseSeverities,
  parseTypes,
} from "./options";

// The code of the commands that need the database or the proxy, required when they run (the CLI
// runs as CommonJS through tsx's require hook, bin/sightdesk.mjs, where import() finds no .ts).
const user = () => require("./commands/user") as typeof import("./commands/user");
const importer = () => require("./commands/import") as typeof import("./commands/import");
const forwarder = () => require("./commands/forward") as typeof import("./commands/forward");
const proxyCmd = () => require("./commands/proxy") as typeof import("./commands/proxy");
const demoCmd = () => require("./commands/demo") as typeof import("./commands/demo");

/** Builds the per-command context from the global options (--url, --token). */
export type ContextFactory = (cmd: Command) => Context;

function addFilterOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--last <hours>", "only the last HOURS hours").argParser(parseHours).default(24))
    .option("--type <types>", "interruption types, comma-separated (repeatable)", parseTypes)
    .option("--severity <levels>", "severities: critical,high,medium,low (repeatable)", parseSeverities)
    .option("--agent <names>", "agent names, comma-separated (repeatable)", parseNames)
    .option("--json", "print the server's JSON response (exact nanoseconds)");
}

const EXAMPLES = `
Examples:
  $ sightdesk interruption list --last 24 --severity high --unresolved
  $ sightdesk interruption count --agent CoshNG
  $ sightdesk interruption get 3f0c9e5d2b7a4c1e8f6a0b9d7c5e3a1f
  $ sightdesk interruption resolve 3f0c9e5d2b7a4c1e8f6a0b9d7c5e3a1f --note "provider recovered"
  $ sightdesk interruption snooze 3f0c9e5d2b7a4c1e8f6a0b9d7c5e3a1f --for 8h --escalates --reason "provider incident"
  $ sightdesk token create --name ci-reader --scope read --expires 2027-01-31
  $ sightdesk user create --email alice@example.com --role admin
  $ sightdesk import agentsight ~/.agentsight --follow --url https://sightdesk.example.com
  $ sightdesk token create --name fwd-web-3 --scope ingest,forwarder
  $ sightdesk forward ~/.agentsight --url https://sightdesk.example.com --listen 0.0.0.0:7480
  $ sightdesk proxy --url https://sightdesk.example.com --agent-name CoshNG

Server and token:
  --url, else $SIGHTDESK_URL, else ${DEFAULT_URL}.
  --token, else $SIGHTDESK_TOKEN, else the server's token file
  ($SIGHTDESK_DATA_DIR/.dashboard_token, by default ./data/.dashboard_token).`;

export function buildProgram(contextFor: ContextFactory, io: Io, version?: string): Command {
  // exitOverride, output and help settings are inherited by subcommands added after them
  const program = new Command("sightdesk")
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .configureHelp({ showGlobalOptions: true })
    .description("Triage AI-agent interruptions on a SightDesk server from the terminal.")
    .option("--url <url>", `the SightDesk server (default: $SIGHTDESK_URL or ${DEFAULT_URL})`)
    .option("--token <token>", "an API token (default: $SIGHTDESK_TOKEN or the local token file)")
    .showHelpAfterError(USAGE_HINT)
    .addHelpText("after", EXAMPLES);
  if (version) program.version(version, "-V, --version");

  // commander calls an action with the positional arguments, the options and the command
  const i = program.command("interruption").alias("i").description("list, count and triage interruptions");

  addFilterOptions(i.command("list").description("interruptions, newest first"))
    .addOption(new Option("--unresolved", "only unresolved ones (open, acknowledged or snoozed)").conflicts("resolved"))
    .addOption(new Option("--resolved", "only resolved ones").conflicts("unresolved"))
    .option("--session <id>", "only this session", parseNonEmpty)
    .option("--conversation <id>", "only this conversation", parseNonEmpty)
    .option("--limit <n>", `at most N interruptions (default: ${interruption.DEFAULT_LIMIT})`, parsePositiveInt)
    .action((opts: interruption.ListOptions, cmd: Command) => interruption.list(contextFor(cmd), opts));

  addFilterOptions(i.command("count").description("unresolved interruptions by severity")).action(
    (opts: interruption.FilterOptions, cmd: Command) => interruption.count(contextFor(cmd), opts),
  );

  addFilterOptions(i.command("stats").description("unresolved interruptions by type and severity")).action(
    (opts: interruption.FilterOptions, cmd: Command) => interruption.stats(contextFor(cmd), opts),
  );

  i.command("get")
    .description("every field of one interruption, with its detail")
    .argument("<id>", "the interruption id (32 hex characters)")
    .option("--json", "print the server's JSON response")
    .action((id: string, opts: interruption.JsonOption, cmd: Command) => interruption.get(contextFor(cmd), id, opts));

  i.command("session")
    .description("a session's interruptions, oldest first")
    .argument("<id>", "the session id")
    .option("--json", "print the server's JSON response")
    .action((id: string, opts: interruption.JsonOption, cmd: Command) => interruption.session(contextFor(cmd), id, opts));

  i.command("conversation")
    .description("a conversation's interruptions, oldest first")
    .argument("<id>", "the conversation id")
    .option("--json", "print the server's JSON response")
    .action((id: string, opts: interruption.JsonOption, cmd: Command) => interruption.conversation(contextFor(cmd), id, opts));

  i.command("resolve")
    .description("resolve an interruption (needs the triage scope)")
    .argument("<id>", "the interruption id")
    .option("--note <text>", "a resolution note")
    .option("--json", "print the server's JSON response")
    .action((id: string, opts: interruption.NoteOptions, cmd: Command) => interruption.resolve(contextFor(cmd), id, opts));

  i.command("acknowledge")
    .alias("ack")
    .description("acknowledge an open interruption (needs the triage scope)")
    .argument("<id>", "the interruption id")
    .option("--note <text>", "a note")
    .option("--json", "print the server's JSON response")
    .action((id: string, opts: interruption.NoteOptions, cmd: Command) => interruption.acknowledge(contextFor(cmd), id, opts));

  i.command("snooze")
    .description("set an interruption aside until a time, more occurrences or escalation (needs the triage scope)")
    .argument("<id>", "the interruption id")
    .option("--for <length>", "for 1h, 8h, 24h, 7d (or any N m|h|d)", snoozer.parseDuration)
    .option("--until <time>", "until an ISO 8601 time or integer nanoseconds", parseTime)
    .option("--occurrences <n>", "until N more occurrences of its fingerprint", parsePositiveInt)
    .option("--escalates", "until it escalates: 3x its hourly rate when snoozed, or a more severe one")
    .option("--group", "snooze its whole fingerprint group, new arrivals included")
    .option("--reason <text>", "why (kept in the activity log)")
    .option("--json", "print the server's JSON response")
    .addHelpText("after", "\nThe first condition met wakes it (back to open). A snoozed interruption stays unresolved for\ncount, stats and list --unresolved.")
    .action((id: string, opts: snoozer.SnoozeOptions, cmd: Command) => snoozer.snooze(contextFor(cmd), id, opts));

  const t = program.command("token").description("create, list and revoke API tokens (needs the admin scope)");

  t.command("create")
    .description("create an API token; its secret is printed once")
    .requiredOption("--name <name>", "a name for the token", parseNonEmpty)
    .requiredOption("--scope <scopes>", "scopes: read,triage,ingest,forwarder,admin (comma-separated, repeatable; sightdesk forward needs ingest,forwarder)", parseScopes)
    .option("--expires <time>", "expiry: an ISO 8601 time (e.g. 2027-01-31T12:00:00Z) or integer nanoseconds", parseTime)
    .option("--json", "print the server's JSON response")
    .action((opts: token.CreateOptions, cmd: Command) => token.create(contextFor(cmd), opts));

  t.command("list")
    .description("tokens, without their secrets")
    .option("--json", "print the server's JSON response")
    .action((opts: token.JsonOption, cmd: Command) => token.list(contextFor(cmd), opts));

  t.command("revoke")
    .description("revoke a token: it is refused from then on")
    .argument("<id>", "the token id (see token list)")
    .option("--json", "print the server's JSON response")
    .action((id: string, opts: token.JsonOption, cmd: Command) => token.revoke(contextFor(cmd), id, opts));

  const u = program.command("user").description("manage dashboard users in the local database (works before the server has run)");

  u.command("create")
    .description("add a user who signs in with email and password")
    .requiredOption("--email <email>", "the user's email (their sign-in name)", parseNonEmpty)
    .addOption(new Option("--role <role>", "viewer reads, responder triages, admin manages users and tokens").choices(ROLE_CHOICES).makeOptionMandatory())
    .option("--name <name>", "a display name")
    .option("--password <password>", `the password (default: $${PASSWORD_ENV}, else asked on the terminal)`, parseNonEmpty)
    .option("--json", "print the created user as JSON")
    .addHelpText("after", "\nThe database is $SIGHTDESK_DATA_DIR/sightdesk.db (default ./data) or $DATABASE_URL.")
    .action((opts: CreateOptions) => user().create(opts, { io }));

  const imp = program.command("import").description("import data from other tools");

  imp
    .command("agentsight")
    .description("import an AgentSight data directory (genai_events.db, interruption_events.db)")
    .argument("<dir>", "the AgentSight data directory")
    .option("--follow", "keep polling for new rows and import or forward them (Ctrl+C stops)")
    .option("--interval <secs>", "seconds between polls with --follow", parseInterval, DEFAULT_INTERVAL_SECS)
    .option("--json", "print the counts as JSON")
    .option("--quiet", "no progress on stderr (rows, rows/s and time left: in place on a terminal, else a line every 10 s)")
    .addHelpText(
      "after",
      `
Without --url the data goes into the local database ($SIGHTDESK_DATA_DIR/sightdesk.db, default
./data, or $DATABASE_URL): calls and AgentSight's own interruptions (ids, types, severities,
resolved flags kept). With --url (and --token or $SIGHTDESK_TOKEN, a token with the ingest
scope) the calls are POSTed to the server's /api/ingest/calls and the server detects
interruptions itself; AgentSight's interruption rows cannot be sent over the ingest API.
Re-running is a no-op.`,
    )
    .action((dir: string, opts: AgentSightOptions, cmd: Command) =>
      importer().agentsight(dir, opts, { io, global: cmd.optsWithGlobals<GlobalOptions>() }),
    );

  program
    .command("forward")
    .description("forward an AgentSight directory's calls to a server, and take its dead-loop terminate requests")
    .argument("<dir>", "the AgentSight data directory")
    .option("--interval <secs>", "seconds between polls", parseInterval, DEFAULT_INTERVAL_SECS)
    .addOption(
      new Option("--listen <host:port>", "where the control listener listens")
        .argParser(parseListen)
        .default(parseListen(DEFAULT_LISTEN), `${DEFAULT_LISTEN}, a free port`),
    )
    .option("--advertise <url>", "the listener's URL as the server reaches it (default: the listen address)", parseAdvertise)
    .option("--host <name>", "this host's name, given to calls that have none (default: the OS host name)", parseNonEmpty)
    .option("--json", "print the counts as JSON")
    .addHelpText(
      "after",
      `
The token needs the scopes ingest,forwarder (e.g. \`sightdesk token create --name fwd-web-3
--scope ingest,forwarder\`). Like \`import agentsight <dir> --follow --url URL\`, plus a control
listener: the forwarder registers its host, listener URL and a fresh signing key with the server.
When the server runs with deadloop.enabled, it sends a signed request here to stop a process
stuck in a dead loop (SIGTERM, then SIGKILL); only processes whose calls this forwarder has
forwarded, and only while their pid still belongs to the same process, are ever signalled. The
server must reach the listener: on another machine use --listen 0.0.0.0:PORT (and --advertise
when its address differs). The server refuses a loopback or private listener address unless
its outbound.allow_private lists the range (e.g. SIGHTDESK_OUTBOUND__ALLOW_PRIVATE=127.0.0.0/8
when it runs on this machine).`,
    )
    .action((dir: string, opts: ForwardOptions, cmd: Command) =>
      forwarder().forward(dir, opts, { io, global: cmd.optsWithGlobals<GlobalOptions>() }),
    );

  program
    .command("demo")
    .description("send the demo's traffic (four agents, every interruption type) to the server, to see it at work")
    .option("--json", "print the counts as JSON")
    .addHelpText(
      "after",
      `
The calls, raw provider exchanges and lifecycle events of the last three hours before this hour
go through the server's ingest API (a token with the ingest scope), and the server detects the
interruptions as it would an agent's. Sent again within the hour, nothing changes. For a local
server with demo data and a browser to look at it, run \`npm run demo\` in the repository.`,
    )
    .action((opts: DemoOptions, cmd: Command) => demoCmd().demo(contextFor(cmd), opts));

  program
    .command("proxy")
    .description("a recording proxy for OpenAI- and Anthropic-compatible APIs: point an agent's base URL at it")
    .addOption(
      new Option("--listen <host:port>", "where the proxy listens").argParser(parseListen).default(parseListen(DEFAULT_PROXY_LISTEN), DEFAULT_PROXY_LISTEN),
    )
    .option("--agent-name <name>", "the agent name of the recorded calls (else the X-SightDesk-Agent header, else the process name)", parseNonEmpty)
    .option("--upstream <NAME=URL>", "another upstream, served at /NAME/* (repeatable); also overrides openai or anthropic", collectUpstream)
    .option("--spool <dir>", "where unsent exchanges wait while the server is unreachable (default: $SIGHTDESK_DATA_DIR/spool)")
    .option("--spool-max-mb <mb>", "the spool's size limit; the oldest exchanges are dropped beyond it", parseMegabytes, DEFAULT_SPOOL_MAX_MB)
    .option("--timeout <secs>", "seconds to wait for an upstream's response headers (then 504)", parseSeconds, DEFAULT_TIMEOUT_SECS)
    .option("--idle-timeout <secs>", "seconds an upstream may stay silent mid-answer (then the answer is cut and recorded as timed out)", parseSeconds, DEFAULT_IDLE_TIMEOUT_SECS)
    .addHelpText(
      "after",
      `
Routes: /openai/* → https://api.openai.com/*, /anthropic/* → https://api.anthropic.com/*, and
/NAME/* for each --upstream. Point the agent at it with one variable, e.g.
  OPENAI_BASE_URL=http://127.0.0.1:8788/openai/v1   ANTHROPIC_BASE_URL=http://127.0.0.1:8788/anthropic
Requests and answers pass through unchanged and streamed; the agent's provider key goes only
upstream. Each exchange is recorded without credentials and sent to the server's
/api/ingest/http (the token needs the ingest scope) about once a second. The headers
X-SightDesk-Agent and X-SightDesk-Session name the agent and session and are not sent upstream.`,
    )
    .action((opts: ProxyOptions, cmd: Command) => proxyCmd().proxy(opts, { io, global: cmd.optsWithGlobals<GlobalOptions>() }));

  return program;
}
