"use client";
import { getCsrfToken, signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";

/** Messages for the `error` query parameter next-auth redirects to /login with. */
const URL_ERRORS: Record<string, string> = {
  AccessDenied: "Single sign-on refused: this account may not sign in here. Ask an admin.",
  TooManyAttempts: "Too many attempts, try again later.",
};

export function tooManyAttemptsMessage(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many attempts, try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}

type Outcome = { ok: true } | { ok: false; message: string };

/**
 * next-auth's credentials callback, called directly (as next-auth's own `signIn` does) so
 * that a 429 and its Retry-After reach the form.
 */
async function passwordSignIn(email: string, password: string, callbackUrl: string): Promise<Outcome> {
  const csrfToken = (await getCsrfToken()) ?? "";
  const res = await fetch("/api/auth/callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, password, csrfToken, callbackUrl: `${window.location.origin}${callbackUrl}`, json: "true" }),
  });
  if (res.status === 429) return { ok: false, message: tooManyAttemptsMessage(Number(res.headers.get("retry-after")) || 60) };
  const data = (await res.json().catch(() => ({}))) as { url?: string };
  const error = data.url ? new URL(data.url, window.location.origin).searchParams.get("error") : "unknown";
  return res.ok && !error ? { ok: true } : { ok: false, message: "Wrong email or password." };
}

/** `callbackUrl`: the local path to go to once signed in (the login page checked it). */
export function LoginForm({ sso, urlError, callbackUrl = "/" }: { sso: boolean; urlError?: string | null; callbackUrl?: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(urlError ? (URL_ERRORS[urlError] ?? "Sign-in failed. Try again.") : null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    const result = await passwordSignIn(String(form.get("email")), String(form.get("password")), callbackUrl).catch(
      (): Outcome => ({ ok: false, message: "Could not reach the server. Try again." }),
    );
    setBusy(false);
    if (result.ok) {
      router.replace(callbackUrl);
      router.refresh();
    } else {
      setError(result.message);
    }
  }

  const input = "w-full rounded border border-default bg-[var(--bg)] px-2 py-1.5";
  return (
    <form onSubmit={submit} className="space-y-3">
      <label className="block">
        <span className="mb-1 block text-sm">Email</span>
        <input name="email" type="email" autoComplete="username" required className={input} />
      </label>
      <label className="block">
        <span className="mb-1 block text-sm">Password</span>
        <input name="password" type="password" autoComplete="current-password" required className={input} />
      </label>
      {error && (
        <p data-testid="login-error" className="text-sm text-red-600">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy} className="w-full rounded bg-[var(--accent)] px-3 py-1.5 font-medium text-white disabled:opacity-60">
        {busy ? "Signing in…" : "Sign in"}
      </button>
      {sso && (
        <button type="button" onClick={() => signIn("oidc", { callbackUrl })} className="w-full rounded border border-default px-3 py-1.5">
          Sign in with single sign-on
        </button>
      )}
    </form>
  );
}
