// `sightdesk forward <dir>` (SPEC §7, §8): the forwarder of an agent host. It does what
// `import agentsight <dir> --follow --url …` does — forwards the calls to a server — and also
// runs a control listener for the dead-loop action: it makes up a signing key, registers its
// host, URL and key with the server (`POST /api/forwarders`, again every minute), and takes the
// server's signed terminate requests for the processes whose calls it forwarded. Its token needs
// the scopes ingest (to forward) and forwarder (to register).
import crypto from "node:crypto";
import os from "node:os";
import { ForwardedProcesses, startControl } from "../../deadloop/control";
import { SightDeskClient } from "../client";
import { resolveConnection } from "../config";
import { CliError } from "../errors";
import { safeLine } from "../format";
import { line } from "../io";
import type { Listen } from "../options";
import { agentsight, openSource, stamp, type ImportDeps } from "./import";

export type ForwardOptions = { interval: number; listen: Listen; advertise?: string; host?: string; json?: boolean };

const REREGISTER_MS = 60_000;


/** The URL the server is given: --advertise, else the listener's address (the host name when it listens on all interfaces). */
function advertised(listenerUrl: string, listen: Listen, advertise: string | undefined): string {
  if (advertise) return advertise;
  if (listen.host === "0.0.0.0" || listen.host === "::") return `http://${os.hostname()}:${new URL(listenerUrl).port}`;
  return listenerUrl;
}

/** Registers now and every minute (sooner again after a failure) until stopped. */
function keepRegistered(client: SightDeskClient, body: { host: string; url: string; secret: string }, retryMs: number, deps: ImportDeps): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  let registered = false;
  const attempt = async () => {
    try {
      await client.post("/api/forwarders", { body });
      if (!registered) line(deps.io.err, `${stamp()} registered host ${safeLine(body.host)} at ${safeLine(body.url)} with ${safeLine(client.url)}`);
      registered = true;
    } catch (e) {
      registered = false;
      const message = e instanceof CliError ? e.message : String(e);
      const hint = /forwarder' scope|lacks the/.test(message) ? " (the forwarder's token needs the scopes ingest,forwarder)" : "";
      line(deps.io.err, `${stamp()} error: cannot register the forwarder: ${safeLine(message)}${hint}`);
    }
    if (!stopped) timer = setTimeout(attempt, registered ? REREGISTER_MS : retryMs);
  };
  void attempt();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

export async function forward(dir: string, opts: ForwardOptions, deps: ImportDeps): Promise<void> {
  openSource(dir).close(); // a wrong directory fails before anything listens or registers
  const client = new SightDeskClient(resolveConnection(deps.global, deps.env ?? process.env));
  const host = opts.host ?? os.hostname();
  const processes = new ForwardedProcesses(host);
  const secret = crypto.randomBytes(32).toString("hex");
  let control;
  try {
    control = await startControl({
      secret, processes, host: opts.listen.host, port: opts.listen.port,
      log: (l) => line(deps.io.err, `${stamp()} control: ${safeLine(l)}`),
    });
  } catch (e) {
    throw new CliError(`Cannot listen on ${opts.listen.host}:${opts.listen.port}: ${(e as Error).message}`);
  }
  const url = advertised(control.url, opts.listen, opts.advertise);
  line(deps.io.err, `Control listener on ${control.url} (terminate requests for the processes forwarded from host ${safeLine(host)})`);
  const stop = keepRegistered(client, { host, url, secret }, opts.interval * 1000, deps);
  try {
    await agentsight(
      dir,
      { follow: true, interval: opts.interval, json: opts.json },
      { ...deps, global: { ...deps.global, url: client.url }, forward: { host, delivered: (calls) => processes.add(calls) } },
    );
  } finally {
    stop();
    await control.close();
  }
}
