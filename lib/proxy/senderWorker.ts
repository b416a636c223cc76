// The proxy's sender thread (senderThread.ts): turns the recorded exchanges' bytes into their JSON
// records, and an ExchangeSender serializes, batches, spools and POSTs them, all away from the
// thread that forwards the agents' bytes.
import os from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { wireExchange } from "./exchange";
import { ExchangeSender, type SenderOptions } from "./sender";
import type { ToSender } from "./senderThread";

// Forwarding comes first: on Linux a thread has its own nice value (setpriority with pid 0 sets
// the calling thread's), so this thread yields a busy core to the agents' bytes and catches up
// when they pause. Where that is not allowed, it runs at the normal priority.
try {
  os.setPriority(19);
} catch {
  /* not permitted here: same priority as forwarding */
}

const port = parentPort!;
const sender = new ExchangeSender({ ...(workerData as Omit<SenderOptions, "log">), log: (line) => port.postMessage({ type: "log", line }) });

port.on("message", (m: ToSender) => {
  if (m.type === "add") for (const x of m.exchanges) sender.add(wireExchange(x));
  else if (m.type === "start") sender.start();
  else if (m.type === "stop") void sender.stop().then(() => port.postMessage({ type: "stopped", stats: sender.snapshot() }));
});
