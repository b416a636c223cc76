// `sightdesk proxy` (SPEC §2.6): the recording proxy. Agents point their provider base URL at
// it; it passes every request through unchanged and sends the recorded exchanges to the
// server in batches (lib/proxy/sender.ts, on its own thread: senderThread.ts), spooling to disk
// while the server is unreachable.
import path from "node:path";
import { SenderThread } from "../../proxy/senderThread";
import { startProxy } from "../../proxy/server";
import { upstreamMap } from "../../proxy/routes";
import { resolveConnection } from "../config";
import { CliError } from "../errors";
import { safeLine } from "../format";
import { line } from "../io";
import { stamp, type ImportDeps } from "./import";
import type { Listen } from "../options";

export type ProxyOptions = {
  listen: Listen;
  agentName?: string;
  upstream?: string[];
  spool?: string;
  spoolMaxMb: number;
  timeout: number;
  idleTimeout: number;
};

export async function proxy(opts: ProxyOptions, deps: ImportDeps): Promise<void> {
  const env = deps.env ?? process.env;
  const conn = resolveConnection(deps.global, env);
  const spoolDir = path.resolve(opts.spool ?? path.join(env.SIGHTDESK_DATA_DIR || "./data", "spool"));
  const log = (l: string) => line(deps.io.err, `${stamp()} ${safeLine(l)}`);
  const sender = new SenderThread({ url: conn.url, token: conn.token, spoolDir, spoolMaxBytes: opts.spoolMaxMb * 1024 * 1024, log });
  const upstreams = upstreamMap(opts.upstream ?? []);
  let running;
  try {
    running = await startProxy({
      host: opts.listen.host,
      port: opts.listen.port,
      upstreams,
      agentName: opts.agentName,
      timeoutMs: opts.timeout * 1000,
      idleTimeoutMs: opts.idleTimeout * 1000,
      onExchange: (x) => sender.add(x),
    });
  } catch (e) {
    throw new CliError(`Cannot listen on ${opts.listen.host}:${opts.listen.port}: ${(e as Error).message}`);
  }
  const controller = new AbortController();
  const signal = deps.signal ?? controller.signal;
  // The first signal stops gracefully; the handlers stay while it does, so that the SIGTERM the
  // launcher passes on for a terminal's Ctrl-C (which reached this process too) does not end it
  // at once. A second Ctrl-C (SIGINT) does.
  let interrupts = 0;
  const onSignal = () => controller.abort();
  const onInterrupt = () => {
    if (++interrupts > 1) process.exit(130);
    controller.abort();
  };
  if (!deps.signal) {
    process.on("SIGINT", onInterrupt);
    process.on("SIGTERM", onSignal);
  }
  sender.start();
  // announced once a signal stops it gracefully: one sent on seeing this line no longer ends it at once
  line(deps.io.err, `Recording proxy on ${running.url} → ${conn.url} (spool ${spoolDir})`);
  for (const [name, url] of upstreams) line(deps.io.err, `  ${running.url}/${name}/… → ${url.toString().replace(/\/$/, "")}/…`);
  line(deps.io.err, `e.g. OPENAI_BASE_URL=${running.url}/openai/v1  ANTHROPIC_BASE_URL=${running.url}/anthropic`);

  // started by bin/sightdesk.mjs as its child: stop when that parent is gone (killed outright, it
  // could not pass a signal on), rather than hold the port as an orphan
  const parent = Number(env.SIGHTDESK_PROXY_PARENT) || 0;
  const orphaned = parent ? setInterval(() => process.ppid !== parent && controller.abort(), 1000) : null;
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
  if (orphaned) clearInterval(orphaned);
  await running.close();
  await sender.stop();
  process.off("SIGINT", onInterrupt);
  process.off("SIGTERM", onSignal);
  const s = sender.snapshot();
  line(deps.io.err, `${stamp()} stopped: ${s.sent} exchanges sent, ${s.spoolFiles} spool files left${s.dropped ? `, ${s.dropped} dropped` : ""}`);
}
