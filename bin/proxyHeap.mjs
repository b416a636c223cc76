// V8 heap settings for `sightdesk proxy` (bin/sightdesk.mjs starts the proxy with them).
// With Node's defaults the proxy's short-lived per-stream objects outgrow the 16 MiB young
// generation and are promoted, and the old generation, kept just above its live size, is then
// mark-compacted every few hundred milliseconds: each pause (~10 ms) stalls every stream in
// flight. A larger young generation lets those objects die young, and a larger initial old
// generation defers full collections (bench:proxy, 16 streams at 400/s: first-byte p99 +20 ms
// → +3 ms; BENCHMARKS.md). Memory costs: up to ~128 MiB of young generation, and the old
// generation may grow to 256 MiB before it is first collected.
export const PROXY_HEAP_FLAGS = ["--max-semi-space-size=64", "--initial-old-space-size=256"];
