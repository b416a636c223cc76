"use client";
// The Connect page: copy-paste setup for each way into this server (the recording proxy,
// OpenTelemetry, AgentSight, the REST API), an ingest token minted on the spot by an admin (its
// secret is kept only in this component's state and filled into the snippets), and per source
// when data last arrived and from which agents, polled so a first call shows up without a reload.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState, type ReactNode } from "react";
import { api } from "@/components/api/client";
import type { CreatedToken, SourceRecord } from "@/components/api/types";
import { isAdmin, useCurrentUser } from "@/components/shell/Providers";
import { formatTime, nsToDate, timeAgo } from "@/components/ui/format";
import { Section } from "@/components/ui/Section";
import { Button, CopyButton, ErrorText, errorMessage, Notice } from "@/components/settings/ui";
import type { IngestSource } from "@/lib/domain/sources";
import { snippets, testCall, TOKEN_PLACEHOLDER } from "./snippets";
import { refreshAfterWrite } from "@/components/api/refresh";

export const SOURCES_KEY = ["sources"] as const;
const POLL_MS = 2000;

export const SOURCE_LABEL: Record<IngestSource, string> = {
  api: "API",
  http: "HTTP exchanges",
  proxy: "Proxy",
  otlp: "OpenTelemetry",
  import: "AgentSight",
};

const SOURCE_HELP: Record<IngestSource, string> = {
  api: "POST /api/ingest/calls and /events",
  http: "POST /api/ingest/http from your own capture layer",
  proxy: "sightdesk proxy and the server's /proxy/*",
  otlp: "POST /api/otlp/v1/traces",
  import: "AgentSight import, upload and forwarder",
};

/** "just now" for the last minute, else "3 minutes ago". */
export function arrivedAgo(ns: string, nowMs = Date.now()): string {
  return nowMs - nsToDate(ns).getTime() < 60_000 ? "just now" : timeAgo(ns);
}

function useSources() {
  return useQuery({ queryKey: SOURCES_KEY, queryFn: () => api.get<SourceRecord[]>("/api/sources"), refetchInterval: POLL_MS });
}

export function Connect({ server }: { server: string }) {
  const me = useCurrentUser();
  const admin = isAdmin(me);
  const [token, setToken] = useState<CreatedToken | null>(null);
  const [pasted, setPasted] = useState("");
  const secret = token?.token ?? (pasted.trim() || null);
  // one test call per page view: its id and time are fixed when the page opens
  const [call] = useState(() => testCall(Date.now(), Math.random().toString(36).slice(2, 10)));
  const s = useMemo(() => snippets(server, secret, call), [server, secret, call]);
  const sources = useSources();
  const byName = new Map((sources.data ?? []).map((r) => [r.source, r]));

  return (
    <div className="space-y-6 pb-8" data-testid="connect">
      <div>
        <h1 className="text-lg font-semibold">Connect an agent</h1>
        <p className="text-sm text-muted">
          Send this server (<code className="font-mono text-xs break-all">{server}</code>) your agents&apos; LLM calls. Pick one way in; the list below shows
          when data arrives.
        </p>
      </div>

      <Section variant="band" id="token" title="1. An ingest token" description="Every way in authenticates with a token that has the ingest scope.">
        {secret ? (
          <TokenShown token={token} secret={secret} onClear={() => (setToken(null), setPasted(""))} />
        ) : admin ? (
          <MintToken onCreated={setToken} />
        ) : (
          <Notice testId="connect-ask-admin">
            Only admins can create tokens. Ask an admin for a token with the <code className="font-mono text-xs">ingest</code> scope; the snippets below show{" "}
            <code className="font-mono text-xs">{TOKEN_PLACEHOLDER}</code> where it goes.
          </Notice>
        )}
        {!secret && (
          <label className="flex flex-wrap items-center gap-2 text-sm text-muted">
            Have a token already? Paste it to fill the snippets (it stays in this page):
            <input
              type="password"
              value={pasted}
              onChange={(e) => setPasted(e.target.value)}
              autoComplete="off"
              aria-label="Ingest token"
              className="min-w-0 flex-1 rounded border border-default bg-[var(--bg)] px-2 py-1 font-mono text-xs"
            />
          </label>
        )}
      </Section>

      <SourcesPanel sources={sources.data} error={sources.isError ? errorMessage(sources.error) : null} />

      <Way id="proxy" title="Recording proxy (no code change)" sources={["proxy"]} byName={byName}
        description="Run the proxy beside the agent and point the agent's base URL at it; requests pass through unchanged and each exchange is recorded.">
        <Snippet label="Start the proxy" text={s.proxy} testId="snippet-proxy" />
        <Snippet label="Then, in the agent's environment" text={s.proxyEnv} testId="snippet-proxy-env" />
        <Snippet label="Or without running anything: this server's own proxy" text={s.serverProxy} testId="snippet-server-proxy" />
      </Way>

      <Way id="otlp" title="OpenTelemetry" sources={["otlp"]} byName={byName}
        description="Agents instrumented with the OpenTelemetry GenAI conventions (or OpenInference) export their spans here, by configuration only.">
        <Snippet label="In the agent's environment" text={s.otlp} testId="snippet-otlp" />
      </Way>

      <Way id="agentsight" title="AgentSight" sources={["import"]} byName={byName}
        description="On a host where AgentSight records, keep sending its calls here.">
        <Snippet label="Follow AgentSight's files" text={s.agentsight} testId="snippet-agentsight" />
        <Snippet label="Or the forwarder, which also lets the dead-loop action stop processes (its token needs the scopes ingest and forwarder)" text={s.agentsightForward} testId="snippet-forward" />
      </Way>

      <Way id="api" title="REST API" sources={["api", "http"]} byName={byName}
        description="Send normalized calls, raw HTTP exchanges or lifecycle events from your own code (see /api/openapi.json).">
        <Snippet label="Send one test call" text={s.curl} testId="snippet-curl" />
        <Snippet label="From a SightDesk checkout: the example call" text={s.curlExample} testId="snippet-curl-example" />
      </Way>
    </div>
  );
}

function MintToken({ onCreated }: { onCreated: (t: CreatedToken) => void }) {
  const queryClient = useQueryClient();
  const mint = useMutation({
    mutationFn: () => api.post<CreatedToken>("/api/tokens", { name: `ingest (Connect page, ${new Date().toISOString().slice(0, 10)})`, scopes: ["ingest"], expires_at: null }),
    onSuccess: (t) => {
      void refreshAfterWrite(queryClient, { queryKey: ["settings", "tokens"] });
      onCreated(t);
    },
  });
  return (
    <div className="flex flex-wrap items-center gap-3">
      <Button variant="primary" onClick={() => mint.mutate()} disabled={mint.isPending} data-testid="mint-token">
        {mint.isPending ? "Creating…" : "Create an ingest token"}
      </Button>
      <span className="text-sm text-muted">It can only send data (scope ingest). Revoke it in Settings → API tokens.</span>
      {mint.isError && <ErrorText testId="mint-error">Could not create the token: {errorMessage(mint.error)}</ErrorText>}
    </div>
  );
}

function TokenShown({ token, secret, onClear }: { token: CreatedToken | null; secret: string; onClear: () => void }) {
  return (
    <div data-testid="connect-token" className="space-y-2">
      {token && (
        <p className="text-sm font-medium" role="status">
          Token <span className="break-all">“{token.name}”</span> created and filled into the snippets below. Copy it now: it will not be shown again.
        </p>
      )}
      <div className="flex flex-wrap items-center gap-2">
        <code data-testid="connect-token-secret" className="min-w-0 flex-1 rounded border border-default bg-[var(--bg)] px-2 py-1.5 font-mono text-sm break-all select-all">
          {secret}
        </code>
        <CopyButton text={secret} label="Copy token" />
        {!token && <Button onClick={onClear}>Clear</Button>}
      </div>
    </div>
  );
}

function Snippet({ label, text, testId }: { label: string; text: string; testId: string }) {
  return (
    <div className="space-y-1">
      <div className="flex items-center justify-between gap-2">
        <span className="text-sm font-medium">{label}</span>
        <CopyButton text={text} />
      </div>
      <pre data-testid={testId} className="overflow-x-auto rounded border border-default bg-subtle p-2 font-mono text-xs whitespace-pre">
        {text}
      </pre>
    </div>
  );
}

function Way({ id, title, description, sources, byName, children }: {
  id: string;
  title: string;
  description: string;
  sources: IngestSource[];
  byName: Map<string, SourceRecord>;
  children: ReactNode;
}) {
  const seen = sources.map((s) => byName.get(s)).filter((r): r is SourceRecord => Boolean(r?.last_seen_ns));
  return (
    <Section variant="band" id={id} title={title} description={description}
      actions={seen.length ? <span className="text-xs text-muted">{seen.map((r) => `${SOURCE_LABEL[r.source]}: ${arrivedAgo(r.last_seen_ns!)}`).join(" · ")}</span> : <span className="text-xs text-muted">nothing received yet</span>}>
      {children}
    </Section>
  );
}

function SourcesPanel({ sources, error }: { sources: SourceRecord[] | undefined; error: string | null }) {
  return (
    <Section variant="band" id="arrivals" title="2. What arrives" description={`Updated every ${POLL_MS / 1000} seconds: send something and watch it land.`}>
      {error && <ErrorText>Could not load the sources: {error}</ErrorText>}
      {!sources ? (
        <p className="text-sm text-muted">Loading…</p>
      ) : (
        <ul className="divide-y divide-[var(--border)]" data-testid="sources">
          {sources.map((r) => (
            <li key={r.source} data-testid="source" data-source={r.source} className="flex flex-wrap items-start gap-x-4 gap-y-1 py-2 text-sm">
              <div className="w-40 shrink-0">
                <div className="font-medium">{SOURCE_LABEL[r.source]}</div>
                <div className="text-xs text-muted">{SOURCE_HELP[r.source]}</div>
              </div>
              <div className="w-36 shrink-0" data-testid="source-last-seen">
                {r.last_seen_ns ? <span title={formatTime(r.last_seen_ns)}>{arrivedAgo(r.last_seen_ns)}</span> : <span className="text-muted">never</span>}
                {r.calls > 0 && <div className="text-xs text-muted">{r.calls} {r.calls === 1 ? "call" : "calls"}</div>}
              </div>
              <ul className="flex min-w-0 flex-1 flex-wrap gap-1" aria-label={`Agents via ${SOURCE_LABEL[r.source]}`}>
                {r.agents.map((a) => (
                  <li key={a.agent_name} data-testid="source-agent" title={`last ${formatTime(a.last_seen_ns)} · ${a.calls} calls`}
                    className="max-w-64 truncate rounded-full border border-default px-2 py-0.5 text-xs">
                    {a.agent_name}
                  </li>
                ))}
                {r.last_seen_ns && !r.agents.length && <li className="text-xs text-muted">no agent names</li>}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
