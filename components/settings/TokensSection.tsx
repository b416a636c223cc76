"use client";
// Settings → API tokens. Admins create tokens (the secret is shown once, kept only in this
// component's state), see every token's scopes, use and expiry, and revoke them.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api } from "@/components/api/client";
import { isAdmin, useCurrentUser } from "@/components/shell/Providers";
import { formatTime, nsToDate, timeAgo } from "@/components/ui/format";
import { SCOPE_HELP, SCOPES, type CreatedToken, type Scope, type TokenRecord } from "./types";
import { DangerConfirm } from "./DangerConfirm";
import { Button, FormFooter, Chip, CopyButton, ErrorText, errorMessage, Field, inputClass, Notice } from "./ui";
import { Section } from "@/components/ui/Section";
import { refreshAfterWrite } from "@/components/api/refresh";

const TOKENS_KEY = ["settings", "tokens"] as const;
const DAY_MS = 86_400_000;
const EXPIRY_CHOICES = [
  { value: "never", label: "Never" },
  { value: "7", label: "In 7 days" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In 1 year" },
  { value: "custom", label: "On a date…" },
] as const;
type ExpiryChoice = (typeof EXPIRY_CHOICES)[number]["value"];

export function TokensSection({ dashboardTokenId }: { dashboardTokenId: string }) {
  const me = useCurrentUser();
  const admin = isAdmin(me);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedToken | null>(null);
  return (
    <Section
      variant="band"
      id="tokens"
      title="API tokens"
      description={
        <>
          Bearer tokens for scripts, the CLI and capture agents: <code className="font-mono text-xs">Authorization: Bearer &lt;token&gt;</code>. Secrets are
          stored hashed and shown once.
        </>
      }
      actions={
        admin && !creating && !created ? (
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create token
          </Button>
        ) : null
      }
    >
      {admin ? (
        <>
          {created && <NewSecret token={created} onDone={() => setCreated(null)} />}
          {creating && (
            <CreateTokenForm
              onCancel={() => setCreating(false)}
              onCreated={(t) => {
                setCreating(false);
                setCreated(t);
              }}
            />
          )}
          <TokensTable dashboardTokenId={dashboardTokenId} />
        </>
      ) : (
        <Notice testId="tokens-readonly-note">
          Only admins can create, list and revoke API tokens. Ask an admin for a token with the scopes you need.
        </Notice>
      )}
    </Section>
  );
}

function NewSecret({ token, onDone }: { token: CreatedToken; onDone: () => void }) {
  return (
    <div data-testid="new-token" className="space-y-2 rounded border border-amber-500/60 bg-amber-500/10 p-3">
      <p className="text-sm font-medium" role="status">
        Token <span className="break-all">“{token.name}”</span> created. Copy its secret now: it will not be shown again.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <code data-testid="token-secret" className="min-w-0 flex-1 rounded border border-default bg-[var(--bg)] px-2 py-1.5 font-mono text-sm break-all select-all">
          {token.token}
        </code>
        <CopyButton text={token.token} label="Copy token" />
        <Button variant="primary" onClick={onDone}>
          Done
        </Button>
      </div>
      <p className="text-xs text-muted">
        Anyone with this secret can call the API with scopes {token.scopes.join(", ")}. Store it in a secret manager or an environment variable such as
        SIGHTDESK_TOKEN; revoke it here if it leaks.
      </p>
    </div>
  );
}

function expiryIso(choice: ExpiryChoice, date: string): string | null | "invalid" {
  if (choice === "never") return null;
  if (choice === "custom") {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return "invalid";
    const end = new Date(`${date}T23:59:59`); // the end of that day, local time
    if (Number.isNaN(end.getTime()) || end.getTime() <= Date.now()) return "invalid";
    return end.toISOString();
  }
  return new Date(Date.now() + Number(choice) * DAY_MS).toISOString();
}

function CreateTokenForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (t: CreatedToken) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["read"]);
  const [expiry, setExpiry] = useState<ExpiryChoice>("90");
  const [date, setDate] = useState("");
  const [formError, setFormError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: { name: string; scopes: Scope[]; expires_at: string | null }) => api.post<CreatedToken>("/api/tokens", body),
    onSuccess: (t) => {
      void refreshAfterWrite(queryClient, { queryKey: TOKENS_KEY });
      onCreated(t);
    },
  });
  function toggle(scope: Scope, on: boolean) {
    setScopes((s) => (on ? [...new Set([...s, scope])] : s.filter((x) => x !== scope)));
  }
  function submit(e: FormEvent) {
    e.preventDefault();
    setFormError(null);
    if (!scopes.length) return setFormError("Choose at least one scope.");
    const expiresAt = expiryIso(expiry, date);
    if (expiresAt === "invalid") return setFormError("Choose an expiry date in the future.");
    create.mutate({ name: name.trim(), scopes: SCOPES.filter((s) => scopes.includes(s)), expires_at: expiresAt });
  }
  return (
    <form onSubmit={submit} aria-label="Create token" className="space-y-3 rounded border border-default p-3">
      <h3 className="text-sm font-semibold">Create a token</h3>
      <div className="grid gap-3 md:grid-cols-[minmax(0,1fr)_minmax(0,1.4fr)_minmax(0,1fr)]">
        <Field label="Token name" hint="Where it is used, e.g. “ci-reader” or “capture on build-01”.">
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} autoFocus autoComplete="off" className={inputClass} />
        </Field>
        <fieldset>
          <legend className="mb-1 text-sm font-medium">Scopes</legend>
          <div className="space-y-1">
            {SCOPES.map((s) => (
              <label key={s} className="flex items-start gap-2 text-sm">
                <input type="checkbox" className="mt-0.5" checked={scopes.includes(s)} onChange={(e) => toggle(s, e.target.checked)} />
                <span>
                  <span className="font-mono">{s}</span> <span className="text-muted">— {SCOPE_HELP[s]}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
        <div className="space-y-2">
          <Field label="Expires">
            <select value={expiry} onChange={(e) => setExpiry(e.target.value as ExpiryChoice)} className={inputClass}>
              {EXPIRY_CHOICES.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </Field>
          {expiry === "custom" && (
            <Field label="Expiry date" hint="The token stops working at the end of this day.">
              <input type="date" value={date} onChange={(e) => setDate(e.target.value)} required className={inputClass} />
            </Field>
          )}
        </div>
      </div>
      <FormFooter
        error={formError ?? (create.error ? errorMessage(create.error) : null)}
        errorTestId="create-token-error"
        pending={create.isPending}
        submit="Create token"
        pendingLabel="Creating…"
        onCancel={onCancel}
      />
    </form>
  );
}

type TokenState = "active" | "expired" | "revoked";

function stateOf(t: TokenRecord, nowMs: number): TokenState {
  if (t.revoked_at_ns !== null) return "revoked";
  if (t.expires_at_ns !== null && nsToDate(t.expires_at_ns).getTime() <= nowMs) return "expired";
  return "active";
}

const STATE_TONE = { active: "green", expired: "amber", revoked: "gray" } as const;

function When({ ns, none }: { ns: string | null; none: string }) {
  if (ns === null) return <span className="text-muted">{none}</span>;
  return <span title={formatTime(ns)}>{formatTime(ns)}</span>;
}

function TokensTable({ dashboardTokenId }: { dashboardTokenId: string }) {
  const tokens = useQuery({ queryKey: TOKENS_KEY, queryFn: () => api.get<TokenRecord[]>("/api/tokens") });
  const [revoking, setRevoking] = useState<TokenRecord | null>(null);
  const [showInactive, setShowInactive] = useState(true);
  if (tokens.isPending) return <p className="text-sm text-muted">Loading tokens…</p>;
  if (tokens.isError) return <ErrorText>Could not load tokens: {errorMessage(tokens.error)}</ErrorText>;
  const now = Date.now();
  const inactive = tokens.data.filter((t) => stateOf(t, now) !== "active").length;
  const rows = showInactive ? tokens.data : tokens.data.filter((t) => stateOf(t, now) === "active");
  return (
    <>
      {inactive > 0 && (
        <label className="flex items-center gap-2 text-sm text-muted">
          <input type="checkbox" checked={showInactive} onChange={(e) => setShowInactive(e.target.checked)} />
          Show revoked and expired tokens ({inactive})
        </label>
      )}
      {rows.length === 0 ? (
        <p className="text-sm text-muted">No API tokens yet.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm" data-testid="tokens-table">
            <thead>
              <tr className="border-b border-default text-left text-xs text-muted uppercase tracking-wide">
                <th className="py-2 pr-3 font-medium">Name</th>
                <th className="py-2 pr-3 font-medium">Scopes</th>
                <th className="py-2 pr-3 font-medium">Created</th>
                <th className="py-2 pr-3 font-medium">Last used</th>
                <th className="py-2 pr-3 font-medium">Expires</th>
                <th className="py-2 pr-3 font-medium">Status</th>
                <th className="py-2 text-right font-medium">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((t) => {
                const state = stateOf(t, now);
                const fileToken = t.id === dashboardTokenId || t.id.startsWith(`${dashboardTokenId}:`); // one row per data directory
                return (
                  <tr key={t.id} data-testid="token-row" data-token-name={t.name} className={`border-b border-default align-top last:border-b-0 ${state === "active" ? "" : "text-muted"}`}>
                    <td className="py-2 pr-3">
                      <div className="font-medium break-all">{t.name}</div>
                      {fileToken && <div className="text-xs text-muted">the server&apos;s token file, for local tools</div>}
                    </td>
                    <td className="py-2 pr-3">
                      <div className="flex flex-wrap gap-1">
                        {t.scopes.map((s) => (
                          <Chip key={s}>{s}</Chip>
                        ))}
                      </div>
                    </td>
                    <td className="py-2 pr-3 whitespace-nowrap">
                      <div title={formatTime(t.created_at_ns)}>{timeAgo(t.created_at_ns)}</div>
                      {t.created_by && <div className="text-xs break-all text-muted">by {t.created_by}</div>}
                    </td>
                    <td className="py-2 pr-3 whitespace-nowrap">
                      {t.last_used_at_ns === null ? <span className="text-muted">never</span> : <span title={formatTime(t.last_used_at_ns)}>{timeAgo(t.last_used_at_ns)}</span>}
                    </td>
                    <td className="py-2 pr-3 whitespace-nowrap">
                      <When ns={t.expires_at_ns} none="never" />
                    </td>
                    <td className="py-2 pr-3">
                      <Chip tone={STATE_TONE[state]} testId="token-state">
                        {state}
                      </Chip>
                      {t.revoked_at_ns !== null && (
                        <div className="mt-0.5 text-xs whitespace-nowrap text-muted" title={formatTime(t.revoked_at_ns)}>
                          {timeAgo(t.revoked_at_ns)}
                        </div>
                      )}
                    </td>
                    <td className="py-2 text-right">
                      {state !== "revoked" && !fileToken && (
                        <Button small variant="danger" onClick={() => setRevoking(t)} aria-label={`Revoke ${t.name}`}>
                          Revoke
                        </Button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <RevokeDialog token={revoking} onClose={() => setRevoking(null)} />
    </>
  );
}

function RevokeDialog({ token, onClose }: { token: TokenRecord | null; onClose: () => void }) {
  return (
    <DangerConfirm
      item={token}
      title="Revoke this token?"
      confirmLabel="Revoke token"
      request={(t) => api.del<TokenRecord>(`/api/tokens/${encodeURIComponent(t.id)}`)}
      refresh={TOKENS_KEY}
      onClose={onClose}
    >
      <p>
        Every request with <strong className="break-all">“{token?.name}”</strong> is refused from now on. This cannot be undone; create a new token to
        restore access.
      </p>
    </DangerConfirm>
  );
}
