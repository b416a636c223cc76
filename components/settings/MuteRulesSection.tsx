"use client";
// Settings → Mute rules (SPEC §4, noise control): new interruptions matching a fingerprint, or an
// agent and a type, arrive snoozed — no alert, out of the unresolved views — until the rule
// expires or is removed, which wakes what it muted. Responders and admins add and remove rules;
// everyone sees them. Agent names and reasons are untrusted text: rendered as text only.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { MuteRuleRecord } from "@/components/api/types";
import { api } from "@/components/api/client";
import { useAgentNames } from "@/components/api/agents";
import { canTriage, useCurrentUser } from "@/components/shell/Providers";
import { formatTime, timeAgo } from "@/components/ui/format";
import { Section } from "@/components/ui/Section";
import { INTERRUPTION_TYPES } from "@/lib/domain/interruptions";
import { SNOOZE_PRESETS, type SnoozePreset } from "@/lib/domain/snooze";
import { DangerConfirm } from "./DangerConfirm";
import { Button, Chip, ErrorText, errorMessage, Field, FormFooter, inputClass, Notice } from "./ui";
import { refreshAfterWrite } from "@/components/api/refresh";

const KEY = ["settings", "mute-rules"] as const;
const EXPIRIES: Record<SnoozePreset | "never", string> = { never: "Never", "1h": "In 1 hour", "8h": "In 8 hours", "24h": "In 24 hours", "7d": "In 7 days" };
type Expiry = keyof typeof EXPIRIES;

export function MuteRulesSection() {
  const triage = canTriage(useCurrentUser());
  const [creating, setCreating] = useState(false);
  return (
    <Section
      variant="band"
      id="mute-rules"
      title="Mute rules"
      description="New interruptions that match a rule arrive snoozed: no alert, and out of the unresolved views (the inbox's Snoozed tab has them; they still count as unresolved for AgentSight clients). When the rule expires or is removed, what it muted returns to open."
      actions={
        triage && !creating ? (
          <Button variant="primary" onClick={() => setCreating(true)}>
            Add mute rule
          </Button>
        ) : null
      }
    >
      {!triage && <Notice testId="mute-rules-readonly-note">Only responders and admins can add or remove mute rules.</Notice>}
      {creating && <CreateForm onDone={() => setCreating(false)} />}
      <RulesList triage={triage} />
    </Section>
  );
}

function CreateForm({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const agents = useAgentNames();
  const [by, setBy] = useState<"agent" | "fingerprint">("agent");
  const [agent, setAgent] = useState("");
  const [type, setType] = useState<string>(INTERRUPTION_TYPES[0]);
  const [fingerprint, setFingerprint] = useState("");
  const [expiry, setExpiry] = useState<Expiry>("24h");
  const [reason, setReason] = useState("");
  const create = useMutation({
    mutationFn: (body: unknown) => api.post<MuteRuleRecord>("/api/mute-rules", body),
    onSuccess: () => {
      void refreshAfterWrite(queryClient, { queryKey: KEY });
      onDone();
    },
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({
      ...(by === "agent" ? { agent_name: agent.trim(), interruption_type: type } : { fingerprint: fingerprint.trim() }),
      ...(expiry === "never" ? {} : { for_secs: SNOOZE_PRESETS[expiry] }),
      ...(reason.trim() ? { reason: reason.trim() } : {}),
    });
  }
  return (
    <form onSubmit={submit} aria-label="Add mute rule" className="space-y-3 rounded border border-default p-3">
      <h3 className="text-sm font-semibold">Add a mute rule</h3>
      <fieldset className="flex flex-wrap gap-4 text-sm">
        <legend className="sr-only">Match by</legend>
        <label className="inline-flex items-center gap-1.5">
          <input type="radio" name="mute-by" checked={by === "agent"} onChange={() => setBy("agent")} className="accent-[var(--accent)]" />
          An agent and a type
        </label>
        <label className="inline-flex items-center gap-1.5">
          <input type="radio" name="mute-by" checked={by === "fingerprint"} onChange={() => setBy("fingerprint")} className="accent-[var(--accent)]" />
          A fingerprint (type + agent + model + error code)
        </label>
      </fieldset>
      <div className="grid gap-3 md:grid-cols-2">
        {by === "agent" ? (
          <>
            <Field label="Agent">
              <input value={agent} onChange={(e) => setAgent(e.target.value)} required maxLength={200} list="mute-agents" autoComplete="off" autoFocus className={inputClass} />
              <datalist id="mute-agents">
                {(agents.data ?? []).map((a) => (
                  <option key={a} value={a} />
                ))}
              </datalist>
            </Field>
            <Field label="Type">
              <select value={type} onChange={(e) => setType(e.target.value)} className={inputClass}>
                {INTERRUPTION_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            </Field>
          </>
        ) : (
          <Field label="Fingerprint" hint="As the inbox's grouped view and each interruption show it.">
            <input value={fingerprint} onChange={(e) => setFingerprint(e.target.value)} required maxLength={200} autoComplete="off" autoFocus className={`${inputClass} font-mono`} />
          </Field>
        )}
        <Field label="Expires">
          <select value={expiry} onChange={(e) => setExpiry(e.target.value as Expiry)} className={inputClass}>
            {(Object.keys(EXPIRIES) as Expiry[]).map((k) => (
              <option key={k} value={k}>
                {EXPIRIES[k]}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Reason" hint="Shown in each muted interruption's activity.">
          <input value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} autoComplete="off" className={inputClass} />
        </Field>
      </div>
      <FormFooter error={create.error ? errorMessage(create.error) : null} errorTestId="create-mute-rule-error" pending={create.isPending} submit="Add mute rule" pendingLabel="Adding…" onCancel={onDone} />
    </form>
  );
}

function RulesList({ triage }: { triage: boolean }) {
  const rules = useQuery({ queryKey: KEY, queryFn: () => api.get<MuteRuleRecord[]>("/api/mute-rules") });
  const [removing, setRemoving] = useState<MuteRuleRecord | null>(null);
  if (rules.isPending) return <p className="text-sm text-muted">Loading mute rules…</p>;
  if (rules.isError) return <ErrorText>Could not load mute rules: {errorMessage(rules.error)}</ErrorText>;
  if (!rules.data.length) return <p className="text-sm text-muted">No mute rules.</p>;
  return (
    <>
      <ul className="space-y-2" data-testid="mute-rules-list">
        {rules.data.map((r) => (
          <li key={r.id} data-testid="mute-rule-row" className="flex flex-wrap items-start justify-between gap-3 rounded border border-default p-3">
            <div className="min-w-0 space-y-1">
              <div className="flex flex-wrap items-center gap-2">
                {r.fingerprint ? (
                  <span className="font-mono text-xs break-all">fingerprint {r.fingerprint}</span>
                ) : (
                  <span className="break-all">
                    <span className="font-medium">{r.agent_name}</span> · <span className="font-mono text-xs">{r.interruption_type}</span>
                  </span>
                )}
                <Chip tone={r.active ? "accent" : "gray"} testId="mute-rule-state">
                  {r.active ? "active" : "expired"}
                </Chip>
              </div>
              {r.reason && <div className="text-sm break-words">{r.reason}</div>}
              <div className="text-xs text-muted">
                <span data-testid="mute-rule-counts">
                  muted {r.muted} · {r.snoozed} still snoozed
                </span>{" "}
                · {r.expires_at_ns ? `${r.active ? "expires" : "expired"} ${formatTime(r.expires_at_ns)}` : "no expiry"} · added by {r.created_by}{" "}
                <span title={formatTime(r.created_at_ns)}>{timeAgo(r.created_at_ns)}</span>
              </div>
            </div>
            {triage && (
              <Button small variant="danger" onClick={() => setRemoving(r)} aria-label={`Remove mute rule ${r.fingerprint ?? `${r.agent_name} ${r.interruption_type}`}`}>
                Remove
              </Button>
            )}
          </li>
        ))}
      </ul>
      <DangerConfirm
        item={removing}
        title="Remove this mute rule?"
        confirmLabel="Remove rule"
        request={(r) => api.del<MuteRuleRecord>(`/api/mute-rules/${encodeURIComponent(r.id)}`)}
        refresh={KEY}
        onClose={() => setRemoving(null)}
      >
        <p>New matching interruptions arrive open again, and the {removing?.snoozed ?? 0} it still holds return to open now.</p>
      </DangerConfirm>
    </>
  );
}
