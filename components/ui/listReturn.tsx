"use client";
// "← Inbox" and "← Sessions" reopen the list as it was last shown in this tab (its filters are in
// its URL), not the list's default view: list pages remember their URL, detail pages link to it.
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useEffect, useState, type ReactNode } from "react";

const key = (path: string) => `sightdesk.list:${path}`;

/** Remembers, for this tab, the URL of the list page at `path` as it changes. */
export function useRememberListUrl(path: string): void {
  const search = useSearchParams().toString();
  useEffect(() => {
    try {
      sessionStorage.setItem(key(path), search ? `${path}?${search}` : path);
    } catch {
      /* storage off: the links go to the list's default view */
    }
  }, [path, search]);
}

/** A link to the list page at `path`, as it was last shown in this tab. */
export function ListReturnLink({ path, className, children }: { path: string; className?: string; children: ReactNode }) {
  const [href, setHref] = useState(path);
  useEffect(() => {
    try {
      const remembered = sessionStorage.getItem(key(path));
      if (remembered && (remembered === path || remembered.startsWith(`${path}?`))) setHref(remembered);
    } catch {
      /* storage off */
    }
  }, [path]);
  return (
    <Link href={href} className={className}>
      {children}
    </Link>
  );
}
