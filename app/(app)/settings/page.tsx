import path from "node:path";
import type { Metadata } from "next";
import Link from "next/link";
import { ConfigSection, type ConfigView } from "@/components/settings/ConfigSection";
import { ImportSection } from "@/components/settings/ImportSection";
import { MuteRulesSection } from "@/components/settings/MuteRulesSection";
import { TokensSection } from "@/components/settings/TokensSection";
import { UsersSection } from "@/components/settings/UsersSection";
import { WebhooksSection } from "@/components/settings/WebhooksSection";
import { uploadLimit } from "@/lib/api/body";
import { DASHBOARD_TOKEN_ID } from "@/lib/auth/dashboardToken";
import { requireUser } from "@/lib/auth/requireUser";
import { detectionConfig } from "@/lib/config/detection";
import { config } from "@/lib/config/load";
import { databaseUrl, sqliteFilePath } from "@/lib/db/url";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Settings · SightDesk" };

/** Storage and sign-in as people may see them: kinds and names only, never URLs with credentials. */
function effectiveConfig(): ConfigView {
  const file = sqliteFilePath(databaseUrl());
  const storage = file ? `SQLite (${path.basename(file)})` : "PostgreSQL"; // the only other kind providerOf lets start
  const sso = Boolean(process.env.SIGHTDESK_OIDC_ISSUER && process.env.SIGHTDESK_OIDC_CLIENT_ID && process.env.SIGHTDESK_OIDC_CLIENT_SECRET);
  const signIn = sso ? `Email and password; single sign-on (${process.env.SIGHTDESK_OIDC_NAME || "OIDC"})` : "Email and password";
  const c = config();
  const operations = {
    retentionDays: c.retentionDays, activityRetentionDays: c.activityRetentionDays, maxDbSizeMb: c.maxDbSizeMb, checkIntervalSecs: c.checkIntervalSecs,
    staleTurnMinutes: c.staleTurnMinutes, deadloop: c.deadloop, allowPrivate: c.outbound.allowPrivate, configFile: c.source.file ? path.basename(c.source.file) : null,
  };
  return { detection: detectionConfig(), storage, signIn, operations };
}

/** The SMTP server email alerts go through (host, port, From; never the credentials), or null. */
function emailSetup() {
  const { host, port, from } = config().smtp;
  return host && from ? { host, port, from } : null;
}

const SECTIONS = [
  { id: "users", label: "Users and roles" },
  { id: "tokens", label: "API tokens" },
  { id: "webhooks", label: "Alert webhooks" },
  { id: "mute-rules", label: "Mute rules" },
  { id: "import", label: "Import from AgentSight" },
  { id: "configuration", label: "Effective configuration" },
];

/**
 * For every signed-in user: viewers and responders see their role and read-only notes, and the
 * effective configuration (no secrets in it). What only admins may see (users, tokens, webhooks,
 * imports) is loaded by the sections from admin-scoped API routes, which answer others with 403.
 */
export default async function SettingsPage() {
  await requireUser();
  return (
    <div className="space-y-6 pb-8">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-lg font-semibold">Settings</h1>
          <p className="text-sm text-muted">
            Who can sign in, which tokens can call the API, and how detection is configured. To send data from an agent, see{" "}
            <Link href="/connect" className="font-medium text-[var(--accent)] underline-offset-2 hover:underline">
              Connect an agent
            </Link>
            .
          </p>
        </div>
        <nav aria-label="Settings sections">
          <ul className="flex flex-wrap gap-1 text-sm">
            {SECTIONS.map((s) => (
              <li key={s.id}>
                <a href={`#${s.id}`} className="rounded px-2 py-1 text-muted hover:bg-subtle hover:text-[var(--fg)]">
                  {s.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      <UsersSection />
      <TokensSection dashboardTokenId={DASHBOARD_TOKEN_ID} />
      <WebhooksSection email={emailSetup()} />
      <MuteRulesSection />
      <ImportSection maxBytes={uploadLimit()} />
      <ConfigSection config={effectiveConfig()} />
    </div>
  );
}
