// `sightdesk demo`: the demo's traffic (lib/demo: four agents, every interruption type) sent to a
// server through its ingest API, as agents would send it — to see a running server's inbox,
// trajectories and alerts at work. The traffic covers the three hours before the hour it is
// sent in: sent again within that hour it changes nothing (ingest is idempotent).
import { NS_PER_HOUR, nowNs } from "../../domain/time";
import { demoRequests } from "../../demo/load";
import { generateDemo } from "../../demo/scenarios";
import type { Context } from "../context";
import { plural, safeLine } from "../format";
import { line } from "../io";

export type DemoOptions = { json?: boolean };

type Counts = { received?: number; accepted?: number; duplicates?: number; interruptions?: number };

export async function demo(ctx: Context, opts: DemoOptions): Promise<void> {
  const client = ctx.client();
  const now = nowNs(ctx.now());
  const base = now - (now % NS_PER_HOUR) - 3n * NS_PER_HOUR;
  const totals = { calls: 0, duplicates: 0, events: 0, interruptions: 0 };
  for (const batch of demoRequests(generateDemo(base))) {
    const res = await client.post(`/api/ingest/${batch.route}`, { body: batch.payloads });
    const counts = (res.value ?? {}) as Counts;
    totals.interruptions += counts.interruptions ?? 0;
    if (batch.route === "events") totals.events += batch.payloads.length;
    else {
      totals.calls += counts.accepted ?? 0;
      totals.duplicates += counts.duplicates ?? 0;
    }
  }
  if (opts.json) return line(ctx.io.out, JSON.stringify(totals));
  line(
    ctx.io.out,
    `Sent the demo to ${safeLine(client.url)}: ${plural(totals.calls, "call")} stored (${totals.duplicates} already there), ` +
      `${plural(totals.events, "event")}, ${plural(totals.interruptions, "interruption")} detected.\nOpen ${safeLine(client.url)}/inbox`,
  );
}
