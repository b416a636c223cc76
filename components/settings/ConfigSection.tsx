// Settings → Effective configuration (server component, read-only): the detection thresholds
// and per-type severities in force, and how storage and sign-in are set up. No secret (database
// credentials, session secret, OIDC client secret, tokens) is ever passed in here.
import { Facts } from "@/components/ui/Facts";
import { Section } from "@/components/ui/Section";
import { SeverityBadge } from "@/components/ui/SeverityBadge";
import type { DetectionConfig } from "@/lib/config/detection";
import { SEVERITIES } from "@/lib/domain/interruptions";

export type ConfigView = {
  detection: DetectionConfig;
  storage: string;
  signIn: string;
  /** sweeps and the dead-loop action (SPEC §3.5, §7) */
  operations: {
    retentionDays: number;
    activityRetentionDays: number;
    maxDbSizeMb: number;
    checkIntervalSecs: number;
    staleTurnMinutes: number;
    deadloop: { enabled: boolean; killAfterCount: number };
    /** outbound.allow_private: non-public ranges webhooks and forwarders may reach */
    allowPrivate: string[];
    /** base name of the config file read, or null */
    configFile: string | null;
  };
};

const FACTS = "gap-x-4 gap-y-1 pt-2 text-sm";

const pct = (ratio: number) => `${Math.round(ratio * 1000) / 10} %`;
const ms = (v: number) => (v >= 1000 && v % 1000 === 0 ? `${v / 1000} s` : `${v} ms`);

function rows(d: DetectionConfig): Array<{ key: string; value: string; meaning: string }> {
  return [
    { key: "token_limit ratio", value: pct(d.tokenLimitRatio), meaning: "a length finish with output tokens at or above this share of max_tokens" },
    { key: "context_overflow input factor", value: `${d.contextOverflowInputFactor} ×`, meaning: "a length finish with input tokens above this multiple of max_tokens" },
    { key: "sse_truncated minimum", value: ms(d.sseTruncatedMinMs), meaning: "a stream without its terminal event that lasted at least this long" },
    { key: "slow_response threshold", value: ms(d.slowResponseMs), meaning: "a successful call that took at least this long" },
    { key: "retry_storm count", value: String(d.retryStormCount), meaning: "calls of one conversation failing with the same type" },
    { key: "dead_loop window", value: `${d.loop.window} calls`, meaning: "the last calls of a conversation the loop rules look at" },
    { key: "tool sequence repetition", value: `${d.loop.toolRepeat} calls`, meaning: "identical tool-call sequences in a row" },
    { key: "output similarity", value: `${d.loop.similarityCount} outputs > ${d.loop.similarity}`, meaning: "text outputs this similar (Jaccard) to the first of them" },
    { key: "token burn, no progress", value: `${d.loop.tokenBurnCalls} calls`, meaning: "input tokens grow while the outputs stay similar" },
    { key: "busy wait", value: `${d.loop.busyWaitCalls} calls`, meaning: "consecutive calls that only run idle commands (sleep, echo, date…)" },
  ];
}

export function ConfigSection({ config }: { config: ConfigView }) {
  const d = config.detection;
  const op = config.operations;
  const bySeverity = SEVERITIES.map((s) => ({
    severity: s,
    types: Object.entries(d.severity)
      .filter(([, sev]) => sev === s)
      .map(([type]) => type)
      .sort(),
  })).filter((g) => g.types.length);
  return (
    <Section
      variant="band"
      id="configuration"
      title="Effective configuration"
      description="What this server runs with now, read-only. Change it through the environment or the config file and restart."
      bodyClassName="grid gap-6 p-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]"
    >
      <div className="space-y-3">
        <div className="flex items-center gap-2 text-sm">
          <span className="font-medium">Interruption detection</span>
          <span
            data-testid="detection-enabled"
            className={`rounded border px-1.5 py-px text-xs ${d.enabled ? "border-green-600/60 text-green-700 dark:text-green-400" : "border-amber-600/60 text-amber-700 dark:text-amber-400"}`}
          >
            {d.enabled ? "enabled" : "disabled"}
          </span>
        </div>
        <table className="w-full text-sm" data-testid="config-thresholds">
          <thead>
            <tr className="border-b border-default text-left text-xs text-muted uppercase tracking-wide">
              <th className="py-2 pr-3 font-medium">Threshold</th>
              <th className="py-2 pr-3 font-medium">Value</th>
              <th className="py-2 font-medium">Fires on</th>
            </tr>
          </thead>
          <tbody>
            {rows(d).map((r) => (
              <tr key={r.key} className="border-b border-default align-baseline last:border-b-0">
                <td className="py-1.5 pr-3 font-mono text-xs whitespace-nowrap">{r.key}</td>
                <td className="py-1.5 pr-3 whitespace-nowrap tabular-nums">{r.value}</td>
                <td className="py-1.5 text-muted">{r.meaning}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <Facts
          className={FACTS}
          items={[
            ["Storage", config.storage],
            ["Sign-in", config.signIn],
          ]}
        />
        <Facts
          className={FACTS}
          testId="config-operations"
          items={[
            ["Retention", `${op.retentionDays} days`],
            ["Activity retention", `${op.activityRetentionDays} days (who acknowledged, resolved, assigned)`],
            ["Size cap", `${op.maxDbSizeMb} MB (oldest resolved trimmed first, down to 90 %)`],
            ["Sweep interval", `every ${op.checkIntervalSecs} s`],
            ["Unsettled turns", `flagged after ${op.staleTurnMinutes} min without activity`],
            ["Dead-loop action", op.deadloop.enabled ? `on: terminate after ${op.deadloop.killAfterCount} detections` : `off (kill after ${op.deadloop.killAfterCount} when on)`],
            [
              "Outbound private ranges",
              op.allowPrivate.length ? op.allowPrivate.join(", ") : "none (webhooks and forwarders must be public addresses)",
              { className: "font-mono text-xs", testId: "config-allow-private" },
            ],
            ["Config file", op.configFile ?? "none (defaults and environment)", { className: "font-mono text-xs" }],
          ]}
        />
      </div>
      <div>
        <h3 className="mb-2 text-sm font-medium">Severity per interruption type</h3>
        <div className="space-y-3" data-testid="config-severities">
          {bySeverity.map((g) => (
            <div key={g.severity}>
              <SeverityBadge severity={g.severity} count={g.types.length} />
              <ul className="mt-1 flex flex-wrap gap-1">
                {g.types.map((t) => (
                  <li key={t} className="rounded border border-default px-1.5 py-px font-mono text-xs">
                    {t}
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      </div>
    </Section>
  );
}
