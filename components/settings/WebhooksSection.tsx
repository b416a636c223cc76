"use client";
// Settings → Alert webhooks (SPEC §7, issue 15). Admins add rules — each new interruption, or a
// rate of them — with a channel (generic JSON signed with HMAC-SHA256, Slack, PagerDuty, email),
// enable/disable and delete them, send a test, see whether a rate rule fires, and recent
// deliveries. Names, URLs and receiver errors are untrusted text: rendered as text only.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { CreatedWebhook, DeliveryRecord as Delivery, WebhookRecord, WebhookTestResult } from "@/components/api/types";
import { api } from "@/components/api/client";
import { isAdmin, useCurrentUser } from "@/components/shell/Providers";
import { formatTime, timeAgo } from "@/components/ui/format";
import { DangerConfirm } from "./DangerConfirm";
import { Button, Chip, CopyButton, ErrorText, errorMessage, Notice } from "./ui";
import { Section } from "@/components/ui/Section";
import { WEBHOOKS_KEY as KEY, WebhookForm } from "./WebhookForm";
import { CHANNEL_LABEL, describeDestination, describeFilter, describeRule, localLink, type EmailSetup } from "./webhookText";
import { refreshAfterWrite } from "@/components/api/refresh";

type Created = CreatedWebhook;
type TestResult = WebhookTestResult;

const STATUS_TONE = { pending: "amber", delivered: "green", failed: "gray" } as const;

/** `email`: the SMTP server email alerts go through, or null when none is configured. */
export function WebhooksSection({ email = null }: { email?: EmailSetup }) {
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
          Each new or regressed interruption at or above a severity, or a rate of them (at least N within M minutes, with a second message when it
          falls back), sent within seconds: generic JSON signed in <code className="font-mono text-xs">X-SightDesk-Signature: sha256=…</code>, a Slack
          message, a PagerDuty alert (resolved when SightDesk sees the problem gone) or an email.
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
            <WebhookForm
              email={email}
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

function WebhooksList() {
  // refreshed now and then: a rate rule's state changes by itself
  const hooks = useQuery({ queryKey: KEY, queryFn: () => api.get<WebhookRecord[]>("/api/webhooks"), refetchInterval: 10_000 });
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
    onSuccess: () => void refreshAfterWrite(queryClient, { queryKey: KEY }),
  });
  const sendTest = useMutation({
    mutationFn: () => api.post<TestResult>(`/api/webhooks/${encodeURIComponent(hook.id)}/test`),
    onSuccess: (r) => {
      setTest(r);
      void refreshAfterWrite(queryClient, { queryKey: [...KEY, hook.id, "deliveries"] });
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
            <Chip testId="webhook-channel">{CHANNEL_LABEL[hook.kind]}</Chip>
            {hook.rule === "rate" && <RateState hook={hook} />}
          </div>
          <div className="font-mono text-xs break-all text-muted">{describeDestination(hook)}</div>
          <div className="text-xs text-muted" data-testid="webhook-rule">
            {describeRule(hook)} · {describeFilter(hook)}
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
          {test.ok ? `Test delivered (${hook.kind === "email" ? "SMTP" : "HTTP"} ${test.status_code}, ${test.duration_ms} ms).` : `Test failed: ${test.error ?? "no answer"}`}
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
                <DeliveryEvent delivery={d} />
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

/** The event, linked to what it is about: the interruption, or the inbox as the rate rule filters it. */
function DeliveryEvent({ delivery: d }: { delivery: Delivery }) {
  const href = d.interruption_id ? `/interruptions/${encodeURIComponent(d.interruption_id)}` : d.event === "webhook.test" ? null : localLink(d.url);
  if (!href) return <>{d.event}</>;
  return (
    <a className="text-[var(--accent)] hover:underline" href={href}>
      {d.event}
    </a>
  );
}

/** Whether a rate rule fires now, and since when (or when it last resolved). */
function RateState({ hook }: { hook: WebhookRecord }) {
  const s = hook.rate_state;
  if (s?.firing) {
    return (
      <span title={s.fired_at_ns ? `since ${formatTime(s.fired_at_ns)}` : undefined}>
        <Chip tone="amber" testId="rate-state">
          firing ({s.fired_count})
        </Chip>
      </span>
    );
  }
  return (
    <span title={s?.resolved_at_ns ? `last resolved ${formatTime(s.resolved_at_ns)}` : undefined}>
      <Chip tone="gray" testId="rate-state">
        quiet
      </Chip>
    </span>
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
        Alerts stop going to <strong className="break-all">“{hook?.name}”</strong>, and its delivery history is deleted. What it has paged about is
        not resolved by this.
      </p>
    </DangerConfirm>
  );
}
