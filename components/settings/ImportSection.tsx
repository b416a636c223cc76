"use client";
// Settings → Import from AgentSight (SPEC §2.5): the upload equivalent of
// `sightdesk import agentsight <dir>`. Admins pick AgentSight's SQLite files; the server checks
// both before importing anything and answers what it imported. File names, problems and errors
// are untrusted text: rendered as text only.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { api } from "@/components/api/client";
import { isAdmin, useCurrentUser } from "@/components/shell/Providers";
import { formatCount } from "@/components/ui/numbers";
import type { ImportStats } from "@/components/api/types";
import { Field, FormFooter, errorMessage, inputClass, Notice } from "./ui";
import { Section } from "@/components/ui/Section";
import { refreshAfterWrite } from "@/components/api/refresh";

const FILES = [
  { field: "genai_events", file: "genai_events.db", what: "the LLM calls" },
  { field: "interruption_events", file: "interruption_events.db", what: "AgentSight's interruptions" },
] as const;
type FieldName = (typeof FILES)[number]["field"];

const ACCEPT = ".db,.sqlite,.sqlite3,application/vnd.sqlite3,application/x-sqlite3";
const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

export function ImportSection({ maxBytes }: { maxBytes: number }) {
  const admin = isAdmin(useCurrentUser());
  return (
    <Section
      variant="band"
      id="import"
      title="Import from AgentSight"
      description={
        <>
          Upload AgentSight&apos;s <code className="font-mono text-xs">genai_events.db</code> and/or{" "}
          <code className="font-mono text-xs">interruption_events.db</code>, as{" "}
          <code className="font-mono text-xs">npx sightdesk import agentsight &lt;dir&gt;</code> reads them: ids, types, severities and resolved flags
          are kept, and importing the same files again changes nothing.
        </>
      }
    >
      {admin ? <ImportForm maxBytes={maxBytes} /> : <Notice testId="import-readonly-note">Only admins can import data.</Notice>}
    </Section>
  );
}

function ImportForm({ maxBytes }: { maxBytes: number }) {
  const queryClient = useQueryClient();
  const [files, setFiles] = useState<Partial<Record<FieldName, File>>>({});
  // a new key remounts the file inputs: the only way to clear them
  const [inputsKey, setInputsKey] = useState(0);
  const [formError, setFormError] = useState<string | null>(null);
  const upload = useMutation({
    mutationFn: (form: FormData) => api.upload<ImportStats>("/api/import/agentsight", form),
    // everything but settings may show imported calls, sessions or interruptions
    onSuccess: () => refreshAfterWrite(queryClient, { predicate: (q) => q.queryKey[0] !== "settings" }),
  });
  const chosen = FILES.filter((f) => files[f.field]);

  function submit(e: FormEvent) {
    e.preventDefault();
    setFormError(null);
    if (!chosen.length) return setFormError("Choose genai_events.db, interruption_events.db or both.");
    const total = chosen.reduce((sum, f) => sum + files[f.field]!.size, 0);
    if (total > maxBytes) return setFormError(`The files add up to ${mib(total)}; at most ${mib(maxBytes)} can be uploaded at once.`);
    const form = new FormData();
    for (const f of chosen) form.append(f.field, files[f.field]!);
    upload.mutate(form);
  }

  function clear() {
    setFiles({});
    setInputsKey((k) => k + 1);
    setFormError(null);
    upload.reset();
  }

  const pending = upload.isPending;
  return (
    <form onSubmit={submit} aria-label="Import from AgentSight" aria-busy={pending} className="space-y-3">
      <div key={inputsKey} className="grid gap-3 md:grid-cols-2">
        {FILES.map((f) => (
          <Field key={f.field} label={f.file} hint={`${f.what}; the table ${f.field}.`}>
            <input
              type="file"
              name={f.field}
              accept={ACCEPT}
              disabled={pending}
              data-testid={`import-${f.field}`}
              onChange={(e) => {
                const file = e.target.files?.[0];
                setFiles((prev) => ({ ...prev, [f.field]: file }));
              }}
              className={`${inputClass} file:mr-2 file:rounded file:border-0 file:bg-subtle file:px-2 file:py-0.5`}
            />
          </Field>
        ))}
      </div>
      <p className="text-xs text-muted">At most {mib(maxBytes)} in total. Both files are checked before anything is imported.</p>
      {pending && (
        <p role="status" data-testid="import-progress" className="text-sm text-muted">
          Uploading and importing {chosen.map((f) => f.file).join(" and ")}… large stores take a while.
        </p>
      )}
      {upload.isSuccess && <ImportResult stats={upload.data} />}
      <FormFooter
        error={formError ?? (upload.error ? errorMessage(upload.error) : null)}
        errorTestId="import-error"
        pending={pending}
        submit="Import"
        pendingLabel="Importing…"
        onCancel={clear}
        cancelLabel="Clear"
      />
    </form>
  );
}

const counted = (n: number, what: string) => (n ? `, ${formatCount(n)} ${what}` : "");

function ImportResult({ stats }: { stats: ImportStats }) {
  const { calls, interruptions, sessions } = stats;
  return (
    <Notice tone="success" testId="import-result">
      <p className="font-medium" role="status">
        Import finished.
      </p>
      <ul className="mt-1 space-y-0.5">
        <li data-testid="import-result-calls">
          Calls: {formatCount(calls.imported)} imported, {formatCount(calls.present)} already present{counted(calls.skipped, "skipped")}
          {counted(calls.pending, "still pending in AgentSight (not imported)")}
        </li>
        <li data-testid="import-result-interruptions">
          Interruptions: {formatCount(interruptions.imported)} imported{interruptions.resolved ? ` (${formatCount(interruptions.resolved)} resolved)` : ""},{" "}
          {formatCount(interruptions.present)} already present{counted(interruptions.skipped, "skipped")}
        </li>
        <li data-testid="import-result-sessions">
          Sessions: {formatCount(sessions.imported)} imported, {formatCount(sessions.present)} already present
        </li>
        <li>
          SightDesk&apos;s own detection on the imported calls: {formatCount(stats.detected)} new interruption{stats.detected === 1 ? "" : "s"}
        </li>
      </ul>
      {stats.problems.length > 0 && (
        <ul className="mt-1 list-disc pl-5 text-xs text-muted" aria-label="Skipped rows">
          {stats.problems.map((p, i) => (
            <li key={i} className="break-all">
              {p}
            </li>
          ))}
        </ul>
      )}
      <p className="mt-1">
        <Link href="/inbox" className="text-[var(--accent)] underline">
          Open the inbox
        </Link>
      </p>
    </Notice>
  );
}
