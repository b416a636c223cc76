"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { useCurrentUser } from "./Providers";

const LINKS = [
  { href: "/", label: "Overview" },
  { href: "/inbox", label: "Inbox" },
  { href: "/sessions", label: "Sessions" },
  { href: "/connect", label: "Connect" },
  { href: "/settings", label: "Settings" },
];

export function Nav() {
  const pathname = usePathname();
  const user = useCurrentUser();
  const active = (href: string) => (href === "/" ? pathname === "/" : pathname.startsWith(href));
  return (
    <header className="border-b border-default bg-subtle">
      <nav className="mx-auto flex max-w-[1400px] items-center gap-6 px-4 py-2">
        <Link href="/" className="font-semibold tracking-tight">
          SightDesk
        </Link>
        <ul className="flex gap-1">
          {LINKS.map((l) => (
            <li key={l.href}>
              <Link
                href={l.href}
                aria-current={active(l.href) ? "page" : undefined}
                className={`rounded px-2 py-1 ${active(l.href) ? "bg-[var(--bg)] font-medium shadow-sm" : "text-muted hover:text-[var(--fg)]"}`}
              >
                {l.label}
              </Link>
            </li>
          ))}
        </ul>
        <div className="ml-auto flex items-center gap-3 text-sm">
          <span data-testid="current-user" className="text-muted">
            {user.email} · {user.role}
          </span>
          <button type="button" className="rounded border border-default px-2 py-1 hover:bg-[var(--bg)]" onClick={() => signOut({ callbackUrl: "/login" })}>
            Sign out
          </button>
        </div>
      </nav>
    </header>
  );
}
