// Who is calling (SPEC §2.6), on Linux, for a client on this host: the connection's ports are
// looked up in /proc/net/tcp{,6} to find the client socket's inode, the inode under
// /proc/<pid>/fd, and the process name in /proc/<pid>/comm. Best effort: any failure (another
// OS, another user's process, a race with the process exiting) gives null. It runs beside the
// upstream request, never in its way; processes found before are searched first.
import fs from "node:fs/promises";

export type Peer = { pid: number; processName: string | null };

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

export const isLoopback = (address: string | undefined): boolean => !!address && LOOPBACK.test(address);

/** `0100007F:1F90` → port 8080 (the address part is not needed: ports identify the pair on loopback). */
const portOf = (hexAddr: string): number => parseInt(hexAddr.slice(hexAddr.lastIndexOf(":") + 1), 16);

/** The inode of the socket whose local port is `clientPort` and remote port `serverPort` (the client's end). */
export function findInode(table: string, clientPort: number, serverPort: number): string | null {
  for (const line of table.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[0] === "sl") continue;
    if (portOf(f[1]) === clientPort && portOf(f[2]) === serverPort && f[9] !== "0") return f[9];
  }
  return null;
}

const recent: number[] = [];

async function owns(pid: number, target: string): Promise<boolean> {
  let fds: string[];
  try {
    fds = await fs.readdir(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      if ((await fs.readlink(`/proc/${pid}/fd/${fd}`)) === target) return true;
    } catch {
      /* closed meanwhile */
    }
  }
  return false;
}

async function comm(pid: number): Promise<string | null> {
  try {
    return (await fs.readFile(`/proc/${pid}/comm`, "utf8")).trim() || null;
  } catch {
    return null;
  }
}

/** The process on this host that holds the client end of the connection clientPort → serverPort. */
export async function findPeer(clientPort: number, serverPort: number): Promise<Peer | null> {
  if (process.platform !== "linux") return null;
  try {
    let inode: string | null = null;
    for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      inode = findInode(await fs.readFile(file, "utf8").catch(() => ""), clientPort, serverPort);
      if (inode) break;
    }
    if (!inode) return null;
    const target = `socket:[${inode}]`;
    const candidates = [...recent];
    for (const pid of candidates) {
      if (await owns(pid, target)) return { pid, processName: await comm(pid) };
    }
    const pids = (await fs.readdir("/proc")).filter((d) => /^\d+$/.test(d)).map(Number).filter((p) => !candidates.includes(p));
    for (const pid of pids) {
      if (await owns(pid, target)) {
        recent.unshift(pid);
        if (recent.length > 16) recent.pop();
        return { pid, processName: await comm(pid) };
      }
    }
  } catch {
    /* best effort */
  }
  return null;
}
