"use client";
// Settings → Alert webhooks (SPEC §7). Admins add destinations (generic JSON signed with
// HMAC-SHA256, or Slack), enable/disable and delete them, send a test, and see recent deliveries.
// Names, URLs and receiver errors are untrusted text: rendered as text only.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { CreatedWebhook, DeliveryRecord as Delivery, WebhookRecord, WebhookTestResult } from "@/components/api/types";
import { api } from "@/components/api/client";
import { isAdmin, useCurrentUser } from "@/components/shell/Providers";
import { formatTime, timeAgo } from "@/components/ui/format";
import { INTERRUPTION_TYPES, SEVERITIES, type Severity } from "@/lib/domain/interruptions";
import { DangerConfirm } from "./DangerConfirm";
import { Button, FormFooter, Chip, CopyButton, ErrorText, errorMessage, Field, inputClass, Notice } from "./ui";
import { Section } from "@/components/ui/Section";

const KEY = ["settings", "webhooks"] as const;
const KINDS = ["generic", "slack"] as const;
type Kind = (typeof KINDS)[number];

type Created = CreatedWebhook;
type TestResult = WebhookTestResult;

const STATUS_TONE = { pending: "amber", delivered: "green", failed: "gray" } as const;

function describeInterval(secs: number): string {
  if (secs === 0) return "every time";
  if (secs % 3600 === 0) return `${secs / 3600} h`;
  if (secs % 60 === 0) return `${secs / 60} min`;
  return `${secs} s`;
}

export function WebhooksSection() {
  const admin = isAdmin(useCurrentUser());
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);
  return (
    <Section
      variant="band"
      id="webhooks"
      title="Alert webhooks"
      description={
        <>
          New or regressed interruptions at or above a severity are POSTed within seconds: generic JSON signed in{" "}
          <code className="font-mono text-xs">X-SightDesk-Signature: sha256=…</code> (HMAC-SHA256 of the body), or a Slack message.
        </>
      }
      actions={
        admin && !creating && !created ? (
          <Button variant="primary" onClick={() => setCreating(true)}>
            Add webhook
          </Button>
        ) : null
      }
    >
      {admin ? (
        <>
          {created?.secret && <NewSecret hook={created} onDone={() => setCreated(null)} />}
          {creating && (
            <CreateForm
              onCancel={() => setCreating(false)}
              onCreated={(w) => {
                setCreating(false);
                setCreated(w.secret ? w : null);
              }}
            />
          )}
          <WebhooksList />
        </>
      ) : (
        <Notice testId="webhooks-readonly-note">Only admins can configure alert webhooks.</Notice>
      )}
    </Section>
  );
}

function NewSecret({ hook, onDone }: { hook: Created; onDone: () => void }) {
  return (
    <div data-testid="new-webhook-secret" className="space-y-2 rounded border border-amber-500/60 bg-amber-500/10 p-3">
      <p className="text-sm font-medium" role="status">
        Webhook <span className="break-all">“{hook.name}”</span> added. Copy its signing secret now: it will not be shown again.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <code data-testid="webhook-secret" className="min-w-0 flex-1 rounded border border-default bg-[var(--bg)] px-2 py-1.5 font-mono text-sm break-all select-all">
          {hook.secret}
        </code>
        <CopyButton text={hook.secret ?? ""} label="Copy secret" />
        <Button variant="primary" onClick={onDone}>
          Done
        </Button>
      </div>
      <p className="text-xs text-muted">The receiver verifies each request by computing HMAC-SHA256 of the raw body with this secret.</p>
    </div>
  );
}

const splitList = (text: string) => [...new Set(text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean))];

function CreateForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (w: Created) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [kind, setKind] = useState<Kind>("generic");
  const [minSeverity, setMinSeverity] = useState<Severity>("high");
  const [types, setTypes] = useState<string[]>([]);
  const [agents, setAgents] = useState("");
  const [repeat, setRepeat] = useState("60");
  const create = useMutation({
    mutationFn: (body: unknown) => api.post<Created>("/api/webhooks", body),
    onSuccess: (w) => {
      void queryClient.invalidateQueries({ queryKey: KEY });
      onCreated(w);
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({
      name: name.trim(),
      url: url.trim(),
      kind,
      min_severity: minSeverity,
      types,
      agents: splitList(agents),
      repeat_interval_secs: Math.max(0, Math.round(Number(repeat) || 0) * 60),
    });
  }
  return (
    <form onSubmit={submit} aria-label="Add webhook" className="space-y-3 rounded border border-default p-3">
      <h3 className="text-sm font-semibold">Add a webhook</h3>
      <div className="grid gap-3 md:grid-cols-2">
        <Field label="Name">
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} autoFocus autoComplete="off" className={inputClass} />
        </Field>
        <Field label="URL" hint="Where alerts are POSTed (http or https).">
          <input value={url} onChange={(e) => setUrl(e.target.value)} required type="url" maxLength={2000} placeholder="https://…" className={inputClass} />
        </Field>
        <Field label="Format">
          <select value={kind} onChange={(e) => setKind(e.target.value as Kind)} className={inputClass}>
            <option value="generic">Generic JSON (signed)</option>
            <option value="slack">Slack incoming webhook</option>
          </select>
        </Field>
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
        <div className="space-y-3">
          <Field label="Agents" hint="Comma-separated agent names; empty: every agent.">
            <input value={agents} onChange={(e) => setAgents(e.target.value)} maxLength={2000} autoComplete="off" className={inputClass} />
          </Field>
          <Field label="Repeat interval (minutes)" hint="No second alert for the same fingerprint within this time; 0 alerts every time.">
            <input value={repeat} onChange={(e) => setRepeat(e.target.value)} type="number" min={0} max={10080} className={inputClass} />
          </Field>
        </div>
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

function WebhooksList() {
  const hooks = useQuery({ queryKey: KEY, queryFn: () => api.get<WebhookRecord[]>("/api/webhooks") });
  const [deleting, setDeleting] = useState<WebhookRecord | null>(null);
  if (hooks.isPending) return <p className="text-sm text-muted">Loading webhooks…</p>;
  if (hooks.isError) return <ErrorText>Could not load webhooks: {errorMessage(hooks.error)}</ErrorText>;
  if (!hooks.data.length) return <p className="text-sm text-muted">No webhooks yet.</p>;
  return (
    <>
      <ul className="space-y-3" data-testid="webhooks-list">
        {hooks.data.map((w) => (
          <WebhookItem key={w.id} hook={w} onDelete={() => setDeleting(w)} />
        ))}
      </ul>
      <DeleteDialog hook={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}

function WebhookItem({ hook, onDelete }: { hook: WebhookRecord; onDelete: () => void }) {
  const queryClient = useQueryClient();
  const [showDeliveries, setShowDeliveries] = useState(false);
  const [test, setTest] = useState<TestResult | null>(null);
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => api.post<WebhookRecord>(`/api/webhooks/${encodeURIComponent(hook.id)}`, { enabled }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: KEY }),
  });
  const sendTest = useMutation({
    mutationFn: () => api.post<TestResult>(`/api/webhooks/${encodeURIComponent(hook.id)}/test`),
    onSuccess: (r) => {
      setTest(r);
      void queryClient.invalidateQueries({ queryKey: [...KEY, hook.id, "deliveries"] });
    },
  });
  return (
    <li data-testid="webhook-row" data-webhook-name={hook.name} className="rounded border border-default p-3">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 space-y-1">
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-medium break-all">{hook.name}</span>
            <Chip tone={hook.enabled ? "green" : "gray"} testId="webhook-state">
              {hook.enabled ? "enabled" : "disabled"}
            </Chip>
            <Chip>{hook.kind === "slack" ? "Slack" : "generic, signed"}</Chip>
          </div>
          <div className="font-mono text-xs break-all text-muted">{hook.url}</div>
          <div className="text-xs text-muted">
            {hook.min_severity} and above · {hook.types.length ? hook.types.join(", ") : "every type"} ·{" "}
            {hook.agents.length ? `agents: ${hook.agents.join(", ")}` : "every agent"} · repeat {describeInterval(hook.repeat_interval_secs)}
          </div>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button small onClick={() => sendTest.mutate()} disabled={sendTest.isPending}>
            {sendTest.isPending ? "Sending…" : "Send test"}
          </Button>
          <Button small onClick={() => toggle.mutate(!hook.enabled)} disabled={toggle.isPending}>
            {hook.enabled ? "Disable" : "Enable"}
          </Button>
          <Button small onClick={() => setShowDeliveries((v) => !v)} aria-expanded={showDeliveries}>
            {showDeliveries ? "Hide deliveries" : "Deliveries"}
          </Button>
          <Button small variant="danger" onClick={onDelete} aria-label={`Delete ${hook.name}`}>
            Delete
          </Button>
        </div>
      </div>
      {test && (
        <p role="status" data-testid="webhook-test-result" className={`mt-2 text-sm ${test.ok ? "text-green-700 dark:text-green-400" : "text-red-700 dark:text-red-400"}`}>
          {test.ok ? `Test delivered (HTTP ${test.status_code}, ${test.duration_ms} ms).` : `Test failed: ${test.error ?? "no answer"}`}
        </p>
      )}
      <ErrorText>{toggle.error ? errorMessage(toggle.error) : sendTest.error ? errorMessage(sendTest.error) : null}</ErrorText>
      {showDeliveries && <Deliveries hookId={hook.id} />}
    </li>
  );
}

function Deliveries({ hookId }: { hookId: string }) {
  const deliveries = useQuery({
    queryKey: [...KEY, hookId, "deliveries"],
    queryFn: () => api.get<Delivery[]>(`/api/webhooks/${encodeURIComponent(hookId)}/deliveries`, { limit: 25 }),
    refetchInterval: 5000,
  });
  if (deliveries.isPending) return <p className="mt-2 text-sm text-muted">Loading deliveries…</p>;
  if (deliveries.isError) return <ErrorText>Could not load deliveries: {errorMessage(deliveries.error)}</ErrorText>;
  if (!deliveries.data.length) return <p className="mt-2 text-sm text-muted">No deliveries yet.</p>;
  return (
    <div className="mt-2 overflow-x-auto">
      <table className="w-full text-sm" data-testid="deliveries-table">
        <thead>
          <tr className="border-b border-default text-left text-xs text-muted uppercase tracking-wide">
            <th className="py-1.5 pr-3 font-medium">When</th>
            <th className="py-1.5 pr-3 font-medium">Event</th>
            <th className="py-1.5 pr-3 font-medium">Status</th>
            <th className="py-1.5 pr-3 font-medium">Attempts</th>
            <th className="py-1.5 font-medium">Last error</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data.map((d) => (
            <tr key={d.id} data-testid="delivery-row" className="border-b border-default align-top last:border-b-0">
              <td className="py-1.5 pr-3 whitespace-nowrap" title={formatTime(d.created_at_ns)}>
                {timeAgo(d.created_at_ns)}
              </td>
              <td className="py-1.5 pr-3">
                {d.interruption_id ? (
                  <a className="text-[var(--accent)] hover:underline" href={`/interruptions/${encodeURIComponent(d.interruption_id)}`}>
                    {d.event}
                  </a>
                ) : (
                  d.event
                )}
              </td>
              <td className="py-1.5 pr-3">
                <Chip tone={STATUS_TONE[d.status]}>{d.status}</Chip>
                {d.status === "pending" && d.next_attempt_at_ns && <div className="text-xs text-muted">next try {formatTime(d.next_attempt_at_ns)}</div>}
              </td>
              <td className="py-1.5 pr-3">{d.attempts}</td>
              <td className="py-1.5 text-xs break-all text-muted">{d.last_error ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DeleteDialog({ hook, onClose }: { hook: WebhookRecord | null; onClose: () => void }) {
  return (
    <DangerConfirm
      item={hook}
      title="Delete this webhook?"
      confirmLabel="Delete webhook"
      request={(w) => api.del<WebhookRecord>(`/api/webhooks/${encodeURIComponent(w.id)}`)}
      refresh={KEY}
      onClose={onClose}
    >
      <p>
        Alerts stop going to <strong className="break-all">“{hook?.name}”</strong>, and its delivery history is deleted.
      </p>
    </DangerConfirm>
  );
}
