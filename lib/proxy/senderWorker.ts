// The proxy's sender thread (senderThread.ts): an ExchangeSender that serializes, batches,
// spools and POSTs the recorded exchanges away from the thread that forwards the agents' bytes.
import { parentPort, workerData } from "node:worker_threads";
import { ExchangeSender, type SenderOptions } from "./sender";
import type { ToSender } from "./senderThread";

const port = parentPort!;
const sender = new ExchangeSender({ ...(workerData as Omit<SenderOptions, "log">), log: (line) => port.postMessage({ type: "log", line }) });

port.on("message", (m: ToSender) => {
  if (m.type === "add") for (const x of m.exchanges) sender.add(x);
  else if (m.type === "start") sender.start();
  else if (m.type === "stop") void sender.stop().then(() => port.postMessage({ type: "stopped", stats: sender.snapshot() }));
});
