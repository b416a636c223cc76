import { redirect } from "next/navigation";
import { LoginForm } from "@/components/shell/LoginForm";
import { safeCallbackPath } from "@/lib/auth/callbackPath";
import { currentUser } from "@/lib/auth/currentUser";

export const dynamic = "force-dynamic";

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ error?: string | string[]; callbackUrl?: string | string[] }> }) {
  const { error, callbackUrl: requested } = await searchParams;
  // back to the page that sent the visitor here: a local path only, else the overview
  const callbackUrl = safeCallbackPath(requested);
  if (await currentUser()) redirect(callbackUrl);
  const sso = Boolean(process.env.SIGHTDESK_OIDC_ISSUER && process.env.SIGHTDESK_OIDC_CLIENT_ID);
  return (
    <main className="mx-auto mt-24 max-w-sm px-4">
      <h1 className="mb-1 text-xl font-semibold">SightDesk</h1>
      <p className="mb-6 text-muted">Sign in to triage your agents&apos; interruptions.</p>
      <LoginForm sso={sso} urlError={typeof error === "string" ? error : null} callbackUrl={callbackUrl} />
    </main>
  );
}
