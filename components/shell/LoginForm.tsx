"use client";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";

export function LoginForm({ sso }: { sso: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    const result = await signIn("credentials", { email: String(form.get("email")), password: String(form.get("password")), redirect: false });
    setBusy(false);
    if (result?.ok && !result.error) {
      router.replace("/");
      router.refresh();
    } else {
      setError("Wrong email or password.");
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
        <button type="button" onClick={() => signIn("oidc", { callbackUrl: "/" })} className="w-full rounded border border-default px-3 py-1.5">
          Sign in with single sign-on
        </button>
      )}
    </form>
  );
}
