// The forwarder's control listener (`sightdesk forward`, SPEC §7): takes the server's signed
// terminate requests and signals the process named — only a process this forwarder has itself
// forwarded calls for (the session and pid of a forwarded call), never any other pid, and only
// while that pid still belongs to the process that made the calls: the process's start time is
// recorded when its calls are forwarded and compared before signalling (a pid reused by another
// process has another start time). Checks, in order: path and method (404), size (413),
// timestamped HMAC signature (401), body (400), timestamp window (401), replay of a request id
// (409), pid forwarded by us (403), same process still running (else `not_running`); then
// process.kill.
import fs from "node:fs";
import http from "node:http";
import { deriveSessionId } from "../ingest/keys";
import { MAX_SKEW_MS, TERMINATE_PATH, verifyTerminate } from "./protocol";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../alerts/rules";

const MAX_BODY_BYTES = 64 * 1024;
const MAX_PROCESSES = 100_000;

/**
 * The start time of a process (field 22 of /proc/<pid>/stat, clock ticks since boot) from the
 * text of that file, or null when it is not one. The second field (the command name, in
 * parentheses) may itself contain spaces and parentheses: fields are counted from the last ")".
 */
export function parseStartTime(stat: string): string | null {
  const close = stat.lastIndexOf(")");
  if (close < 0) return null;
  const fields = stat.slice(close + 1).trim().split(/\s+/); // fields 3 (state) onwards
  const start = fields[22 - 3];
  return start !== undefined && /^\d+$/.test(start) ? start : null;
}

/** Reads a pid's start time: a string, or null when no such process exists (or it cannot be read). */
export type StartTimeReader = (pid: number) => string | null;

/** The Linux reader (/proc). */
export const procStartTime: StartTimeReader = (pid) => {
  try {
    return parseStartTime(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
};

/** The reader to use here: /proc when this system has it, else none (no start-time check). */
export function defaultStartTimeReader(): StartTimeReader | null {
  return procStartTime(process.pid) !== null ? procStartTime : null;
}

/** The (session, pid) pairs of the calls this forwarder has forwarded, with each process's start time. */
export class ForwardedProcesses {
  /** key → the start time seen when its calls were forwarded (null: the pid was not running then) */
  private readonly seen = new Map<string, string | null>();
  private readonly startTime: StartTimeReader | null;

  /** `startTime`: how to read a pid's start time (default: /proc when present; null: no check). */
  constructor(
    readonly host: string,
    startTime: StartTimeReader | null | undefined = defaultStartTimeReader(),
  ) {
    this.startTime = startTime ?? null;
  }

  private static key(sessionId: string, pid: number): string {
    return `${sessionId}\u001f${pid}`;
  }

  /** Remembers the processes of forwarded calls (wire format: `session_id` or agent + pid + host). */
  add(calls: ReadonlyArray<Record<string, unknown>>): void {
    const started = new Map<number, string | null>(); // one read per pid per batch
    for (const c of calls) {
      const pid = c.pid;
      if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 1) continue;
      const agent = typeof c.agent_name === "string" ? c.agent_name : null;
      const host = typeof c.host === "string" ? c.host : this.host;
      const sessionId = typeof c.session_id === "string" && c.session_id ? c.session_id : deriveSessionId(agent, pid, host);
      const key = ForwardedProcesses.key(sessionId, pid);
      if (!started.has(pid)) started.set(pid, this.startTime ? this.startTime(pid) : null);
      const at = started.get(pid)!;
      // the newest running process wins; a pid seen gone keeps what was seen before
      if (this.seen.has(key) && at === null) continue;
      this.seen.delete(key); // re-insert: the most recently forwarded are evicted last
      if (this.seen.size >= MAX_PROCESSES) this.seen.delete(this.seen.keys().next().value!);
      this.seen.set(key, at);
    }
  }

  has(sessionId: string, pid: number): boolean {
    return this.seen.has(ForwardedProcesses.key(sessionId, pid));
  }

  /**
   * Whether the pid still belongs to the process whose calls were forwarded: the same start time
   * now as then. False when it is gone, or was already gone when its calls were forwarded, or has
   * another start time (reused). True when this system cannot tell (no start-time reader).
   */
  sameProcess(sessionId: string, pid: number): boolean {
    if (!this.startTime) return true;
    const then = this.seen.get(ForwardedProcesses.key(sessionId, pid));
    if (then === undefined || then === null) return false;
    return this.startTime(pid) === then;
  }
}

export type ControlOptions = {
  secret: string;
  processes: ForwardedProcesses;
  /** where to listen (default 127.0.0.1, a free port) */
  host?: string;
  port?: number;
  kill?: (pid: number, signal: NodeJS.Signals) => void;
  now?: () => number;
  log?: (line: string) => void;
};

export type ControlServer = { url: string; close: () => Promise<void> };

type Answer = { status: number; body: Record<string, unknown> };

function readBody(req: http.IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Starts the listener; its `url` is the address it listens on (http://host:port). */
export async function startControl(o: ControlOptions): Promise<ControlServer> {
  const kill = o.kill ?? ((pid, signal) => void process.kill(pid, signal));
  const now = o.now ?? Date.now;
  const log = o.log ?? (() => undefined);
  /** request ids handled, until they fall out of the timestamp window */
  const handled = new Map<string, number>();

  async function answer(req: http.IncomingMessage): Promise<Answer> {
    const body = await readBody(req); // read first, whatever the route: the connection stays usable
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path !== TERMINATE_PATH || req.method !== "POST") return { status: 404, body: { error: `only POST ${TERMINATE_PATH}` } };
    if (body === null) return { status: 413, body: { error: `body over ${MAX_BODY_BYTES} bytes` } };
    const header = (name: string) => req.headers[name.toLowerCase()] as string | undefined;
    const verified = verifyTerminate(o.secret, body, header(SIGNATURE_HEADER), header(TIMESTAMP_HEADER), now());
    if (!verified.ok) return { status: verified.status, body: { error: verified.error } };
    const p = verified.payload;
    for (const [id, at] of handled) if (at < now() - 2 * MAX_SKEW_MS) handled.delete(id);
    if (handled.has(p.request_id)) return { status: 409, body: { error: `request ${p.request_id} was handled already` } };
    handled.set(p.request_id, now());
    if (p.pid === process.pid || !o.processes.has(p.session_id, p.pid)) {
      return { status: 403, body: { error: `pid ${p.pid} of session ${p.session_id} is not a process this forwarder has forwarded calls for` } };
    }
    // the pid may have been reused since: then the process we forwarded for is not running
    if (!o.processes.sameProcess(p.session_id, p.pid)) return { status: 200, body: { result: "not_running", pid: p.pid, signal: p.signal } };
    try {
      kill(p.pid, p.signal);
      return { status: 200, body: { result: "signaled", pid: p.pid, signal: p.signal } };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException)?.code;
      if (code === "ESRCH") return { status: 200, body: { result: "not_running", pid: p.pid, signal: p.signal } };
      return { status: 500, body: { error: `cannot send ${p.signal} to pid ${p.pid}: ${code ?? (e as Error)?.message ?? e}` } };
    }
  }

  const server = http.createServer((req, res) => {
    answer(req)
      .catch((e): Answer => ({ status: 500, body: { error: String((e as Error)?.message ?? e) } }))
      .then(({ status, body }) => {
        log(`${req.method} ${req.url} → ${status} ${JSON.stringify(body)}`);
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port ?? 0, o.host ?? "127.0.0.1", () => resolve());
  });
  const addr = server.address() as import("node:net").AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${host}:${addr.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
