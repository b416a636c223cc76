// Who is calling (SPEC §2.6), on Linux, for a client on this host: the connection's ports are
// looked up in /proc/net/tcp{,6} to find the client socket's inode, the inode under
// /proc/<pid>/fd, and the process name in /proc/<pid>/comm. Best effort: any failure (another
// OS, another user's process, a race with the process exiting) gives null. It runs beside the
// upstream request, never in its way; processes found before are searched first, and lookups
// that arrive together share one pass over /proc.
import fs from "node:fs/promises";
import type { Socket } from "node:net";
import type { CallOrigin } from "../domain/calls";

export type Peer = { pid: number; processName: string | null };

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

export const isLoopback = (address: string | undefined): boolean => !!address && LOOPBACK.test(address);

/** `0100007F:1F90` → port 8080 (the address part is not needed: ports identify the pair on loopback). */
const portOf = (hexAddr: string): number => parseInt(hexAddr.slice(hexAddr.lastIndexOf(":") + 1), 16);

const pair = (clientPort: number, serverPort: number) => `${clientPort}>${serverPort}`;

/**
 * The inodes of the client ends of the connections wanted (by `pair(clientPort, serverPort)`:
 * the socket whose local port is the client's and remote port the server's), read from a
 * /proc/net/tcp table in one pass.
 */
export function findInodes(table: string, wanted: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of table.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[0] === "sl" || f[9] === "0") continue;
    const key = pair(portOf(f[1]), portOf(f[2]));
    if (wanted.has(key)) out.set(key, f[9]);
  }
  return out;
}

/** The inode of the client end of one connection, or null. */
export const findInode = (table: string, clientPort: number, serverPort: number): string | null =>
  findInodes(table, new Set([pair(clientPort, serverPort)])).get(pair(clientPort, serverPort)) ?? null;

const recent: number[] = [];

/** Reads the fd links of a process (`socket:[123]`, paths…) into `visit`, until it returns true. */
async function scanFds(pid: number, visit: (link: string) => boolean): Promise<void> {
  let fds: string[];
  try {
    fds = await fs.readdir(`/proc/${pid}/fd`);
  } catch {
    return;
  }
  for (const fd of fds) {
    try {
      if (visit(await fs.readlink(`/proc/${pid}/fd/${fd}`))) return;
    } catch {
      /* closed meanwhile */
    }
  }
}

async function comm(pid: number): Promise<string | null> {
  try {
    return (await fs.readFile(`/proc/${pid}/comm`, "utf8")).trim() || null;
  } catch {
    return null;
  }
}

type Wanted = { clientPort: number; serverPort: number; resolve: (p: Peer | null) => void };
let waiting: Wanted[] = [];
let scanning: Promise<void> | null = null;

/**
 * One pass over /proc for every lookup waiting: the socket tables are read once and each
 * process's fds once, however many connections arrived together (a client opening 16 at once
 * costs one pass, not 16).
 */
async function scan(batch: Wanted[]): Promise<void> {
  const byTarget = new Map<string, Wanted[]>();
  try {
    const tables = await Promise.all(["/proc/net/tcp", "/proc/net/tcp6"].map((f) => fs.readFile(f, "utf8").catch(() => "")));
    const wanted = new Set(batch.map((w) => pair(w.clientPort, w.serverPort)));
    const inodes = new Map(tables.flatMap((t) => [...findInodes(t, wanted)]));
    for (const w of batch) {
      const inode = inodes.get(pair(w.clientPort, w.serverPort));
      if (!inode) continue;
      const target = `socket:[${inode}]`;
      const sameSocket = byTarget.get(target);
      if (sameSocket) sameSocket.push(w);
      else byTarget.set(target, [w]);
    }
    const found = async (pid: number, link: string) => {
      const ws = byTarget.get(link)!;
      byTarget.delete(link);
      if (!recent.includes(pid)) {
        recent.unshift(pid);
        if (recent.length > 16) recent.pop();
      }
      const peer = { pid, processName: await comm(pid) };
      for (const w of ws) w.resolve(peer);
    };
    const visit = async (pid: number) => {
      const hits: string[] = [];
      await scanFds(pid, (link) => {
        if (byTarget.has(link)) hits.push(link);
        return hits.length === byTarget.size;
      });
      for (const link of hits) await found(pid, link);
    };
    // processes found before first: an agent opens many connections over its life
    for (const pid of [...recent]) if (byTarget.size) await visit(pid);
    if (byTarget.size) {
      const pids = (await fs.readdir("/proc")).filter((d) => /^\d+$/.test(d)).map(Number);
      for (const pid of pids) {
        if (!byTarget.size) break;
        if (!recent.includes(pid)) await visit(pid);
      }
    }
  } catch {
    /* best effort */
  } finally {
    for (const w of batch) w.resolve(null); // those not found (a resolved promise ignores this)
  }
}

/** The process on this host that holds the client end of the connection clientPort → serverPort. */
export function findPeer(clientPort: number, serverPort: number): Promise<Peer | null> {
  if (process.platform !== "linux") return Promise.resolve(null);
  return new Promise((resolve) => {
    waiting.push({ clientPort, serverPort, resolve });
    if (!scanning) void next();
  });
}

/** Runs passes while lookups are waiting; those that arrive during a pass go in the next one. */
async function next(): Promise<void> {
  while (waiting.length) {
    const batch = waiting;
    waiting = [];
    scanning = scan(batch);
    await scanning;
  }
  scanning = null;
}

/** A connection's caller: looked up once per connection, settled (value known) or under way. */
export type PeerLookup = { promise: Promise<Peer | null>; settled: boolean; value: Peer | null };

const NO_PEER: PeerLookup = { promise: Promise.resolve(null), settled: true, value: null };
const bySocket = new WeakMap<Socket, PeerLookup>();

/**
 * The calling process of a connection from this host (loopback), looked up the first time the
 * connection is seen and kept for its life: a keep-alive client costs one lookup, not one per
 * request. Any other connection has no peer.
 */
export function connectionPeer(socket: Socket): PeerLookup {
  let l = bySocket.get(socket);
  if (l) return l;
  if (!isLoopback(socket.remoteAddress) || !socket.remotePort || !socket.localPort) l = NO_PEER;
  else {
    const lookup: PeerLookup = { promise: Promise.resolve(null), settled: false, value: null };
    lookup.promise = findPeer(socket.remotePort, socket.localPort).then((p) => {
      lookup.settled = true;
      lookup.value = p;
      return p;
    });
    l = lookup;
  }
  bySocket.set(socket, l);
  return l;
}

/** How long a finished exchange waits for its caller (a first scan of /proc can take ~100 ms on a busy host); the agent never waits for it. */
export const PEER_WAIT_MS = 1000;

/** Calls `deliver` with the caller once known, or with null after `waitMs`. */
export function withPeer(lookup: PeerLookup, deliver: (p: Peer | null) => void, waitMs = PEER_WAIT_MS): void {
  if (lookup.settled) return deliver(lookup.value);
  let waiting = true;
  const t = setTimeout(() => {
    waiting = false;
    deliver(null);
  }, waitMs);
  void lookup.promise.then((p) => {
    if (!waiting) return;
    clearTimeout(t);
    deliver(p);
  });
}

/** The exchange with its caller's pid and process name (the process name is the agent's name when nothing else names it). */
export function fromCaller<T extends Omit<CallOrigin, "call_id">>(x: T, p: Peer | null): T {
  if (p) {
    x.pid = p.pid;
    x.process_name = p.processName;
    if (!x.agent_name && p.processName) x.agent_name = p.processName;
  }
  return x;
}
