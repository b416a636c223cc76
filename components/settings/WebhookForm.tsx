"use client";
// Settings → Alert webhooks → Add: a rule (each new interruption, or a rate: at least N within
// M minutes), the interruptions it looks at (severity, types, agents), and a channel (generic
// signed JSON, Slack, PagerDuty, email) with the fields that channel needs.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { CreatedWebhook } from "@/components/api/types";
import { api } from "@/components/api/client";
import { INTERRUPTION_TYPES, SEVERITIES, type Severity } from "@/lib/domain/interruptions";
import { errorMessage, Field, FormFooter, inputClass, Notice } from "./ui";
import type { EmailSetup } from "./webhookText";
import { refreshAfterWrite } from "@/components/api/refresh";

export const WEBHOOKS_KEY = ["settings", "webhooks"] as const;

const KINDS = {
  generic: "Generic JSON (signed)",
  slack: "Slack incoming webhook",
  pagerduty: "PagerDuty (Events API v2)",
  email: "Email",
} as const;
type Kind = keyof typeof KINDS;
type Rule = "each" | "rate";

const splitList = (text: string) => [...new Set(text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean))];
const whole = (text: string) => Math.max(0, Math.round(Number(text) || 0));

export function WebhookForm({ email, onCancel, onCreated }: { email: EmailSetup; onCancel: () => void; onCreated: (w: CreatedWebhook) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<Kind>("generic");
  const [url, setUrl] = useState("");
  const [routingKey, setRoutingKey] = useState("");
  const [emailTo, setEmailTo] = useState("");
  const [rule, setRule] = useState<Rule>("each");
  const [threshold, setThreshold] = useState("10");
  const [windowMins, setWindowMins] = useState("10");
  const [minSeverity, setMinSeverity] = useState<Severity>("high");
  const [types, setTypes] = useState<string[]>([]);
  const [agents, setAgents] = useState("");
  const [repeat, setRepeat] = useState("60");
  const create = useMutation({
    mutationFn: (body: unknown) => api.post<CreatedWebhook>("/api/webhooks", body),
    onSuccess: (w) => {
      void refreshAfterWrite(queryClient, { queryKey: WEBHOOKS_KEY });
      onCreated(w);
    },
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    const channel =
      kind === "email"
        ? { email_to: splitList(emailTo) }
        : kind === "pagerduty"
          ? { routing_key: routingKey.trim(), ...(url.trim() ? { url: url.trim() } : {}) }
          : { url: url.trim() };
    const when = rule === "rate" ? { rule, rate_threshold: whole(threshold), rate_window_secs: whole(windowMins) * 60 } : { rule, repeat_interval_secs: whole(repeat) * 60 };
    create.mutate({ name: name.trim(), kind, ...channel, ...when, min_severity: minSeverity, types, agents: splitList(agents) });
  }

  return (
    <form onSubmit={submit} aria-label="Add webhook" className="space-y-3 rounded border border-default p-3">
      <h3 className="text-sm font-semibold">Add a webhook</h3>
      <div className="grid gap-3 md:grid-cols-2">
        <Field label="Name">
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} autoFocus autoComplete="off" className={inputClass} />
        </Field>
        <Field label="When">
          <select value={rule} onChange={(e) => setRule(e.target.value as Rule)} className={inputClass}>
            <option value="each">Each new or regressed interruption</option>
            <option value="rate">A rate: at least N interruptions within M minutes</option>
          </select>
        </Field>
        {rule === "rate" && (
          <>
            <Field label="At least (interruptions)" hint="It fires once when the count in the window reaches this, and again at most once per window.">
              <input value={threshold} onChange={(e) => setThreshold(e.target.value)} type="number" min={1} max={100000} required className={inputClass} />
            </Field>
            <Field label="Within (minutes)" hint="A second message says when the count falls back below it.">
              <input value={windowMins} onChange={(e) => setWindowMins(e.target.value)} type="number" min={1} max={10080} required className={inputClass} />
            </Field>
          </>
        )}
        <Field label="Channel">
          <select value={kind} onChange={(e) => setKind(e.target.value as Kind)} className={inputClass}>
            {(Object.keys(KINDS) as Kind[]).map((k) => (
              <option key={k} value={k} disabled={k === "email" && !email}>
                {KINDS[k]}
                {k === "email" && !email ? " (no SMTP server configured)" : ""}
              </option>
            ))}
          </select>
        </Field>
        <ChannelFields kind={kind} email={email} url={url} setUrl={setUrl} routingKey={routingKey} setRoutingKey={setRoutingKey} emailTo={emailTo} setEmailTo={setEmailTo} />
        <Field label="Minimum severity">
          <select value={minSeverity} onChange={(e) => setMinSeverity(e.target.value as Severity)} className={inputClass}>
            {SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {s} and above
              </option>
            ))}
          </select>
        </Field>
        <Field label="Types" hint="None selected: every type.">
          <select multiple value={types} onChange={(e) => setTypes([...e.target.selectedOptions].map((o) => o.value))} className={`${inputClass} h-28`}>
            {INTERRUPTION_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Agents" hint="Comma-separated agent names; empty: every agent.">
          <input value={agents} onChange={(e) => setAgents(e.target.value)} maxLength={2000} autoComplete="off" className={inputClass} />
        </Field>
        {rule === "each" && (
          <Field label="Repeat interval (minutes)" hint="No second alert for the same fingerprint within this time; 0 alerts every time.">
            <input value={repeat} onChange={(e) => setRepeat(e.target.value)} type="number" min={0} max={10080} className={inputClass} />
          </Field>
        )}
      </div>
      <FormFooter
        error={create.error ? errorMessage(create.error) : null}
        errorTestId="create-webhook-error"
        pending={create.isPending}
        submit="Add webhook"
        pendingLabel="Adding…"
        onCancel={onCancel}
      />
    </form>
  );
}

type ChannelProps = {
  kind: Kind;
  email: EmailSetup;
  url: string;
  setUrl: (v: string) => void;
  routingKey: string;
  setRoutingKey: (v: string) => void;
  emailTo: string;
  setEmailTo: (v: string) => void;
};

function ChannelFields({ kind, email, url, setUrl, routingKey, setRoutingKey, emailTo, setEmailTo }: ChannelProps) {
  if (kind === "email") {
    return (
      <Field label="Recipients" hint={email ? `Comma-separated addresses; sent from ${email.from} through ${email.host}:${email.port}.` : undefined}>
        {email ? (
          <input value={emailTo} onChange={(e) => setEmailTo(e.target.value)} required maxLength={5000} autoComplete="off" placeholder="oncall@example.com" className={inputClass} />
        ) : (
          <Notice tone="warning">This server has no SMTP server configured (smtp.host, smtp.from).</Notice>
        )}
      </Field>
    );
  }
  if (kind === "pagerduty") {
    return (
      <>
        <Field label="Routing key" hint="The integration key of an Events API v2 integration on the PagerDuty service. It is not shown again.">
          <input value={routingKey} onChange={(e) => setRoutingKey(e.target.value)} required maxLength={200} autoComplete="off" spellCheck={false} className={`${inputClass} font-mono`} />
        </Field>
        <Field label="Events API URL" hint="Leave empty for PagerDuty's (https://events.pagerduty.com/v2/enqueue); e.g. the EU service's.">
          <input value={url} onChange={(e) => setUrl(e.target.value)} type="url" maxLength={2000} placeholder="https://events.pagerduty.com/v2/enqueue" className={inputClass} />
        </Field>
      </>
    );
  }
  return (
    <Field label="URL" hint={kind === "slack" ? "The Slack incoming webhook URL." : "Where alerts are POSTed (http or https)."}>
      <input value={url} onChange={(e) => setUrl(e.target.value)} required type="url" maxLength={2000} placeholder="https://…" className={inputClass} />
    </Field>
  );
}
