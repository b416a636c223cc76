// The floor of an HTTP answer: given bytes, prebuilt in memory (and gzipped once, at zlib's
// default level, as Next.js compresses), sent by a bare Node http server in a process of its
// own — no database, no framework, nothing computed per request. Timed with the same client as
// SightDesk's routes, it is what any server pays to deliver and a client to read that answer.
import { spawn } from "node:child_process";

const SERVER = `
const http = require("node:http"), zlib = require("node:zlib"), fs = require("node:fs");
const body = fs.readFileSync(process.argv[1]), gzipped = zlib.gzipSync(body);
const server = http.createServer((req, res) => {
  const gzip = /\\bgzip\\b/.test(req.headers["accept-encoding"] || "");
  const bytes = gzip ? gzipped : body;
  res.writeHead(200, { "content-type": "application/json", "content-length": bytes.length, ...(gzip ? { "content-encoding": "gzip" } : {}) });
  res.end(bytes);
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

/** Serves the file's bytes at every path; its base URL, and a stop. */
export function serveStatic(file: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ["-e", SERVER, file], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`static server exited (${code})`)));
    child.stdout!.once("data", (port: Buffer) => resolve({ url: `http://127.0.0.1:${String(port).trim()}`, stop: () => child.kill() }));
  });
}
