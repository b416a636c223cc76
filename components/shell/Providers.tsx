"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { NuqsAdapter } from "nuqs/adapters/next/app";
import { createContext, useContext, useState, type ReactNode } from "react";
import type { CurrentUser } from "@/lib/auth/currentUser";

const UserContext = createContext<CurrentUser | null>(null);

/** The signed-in user (role and scopes decide which actions the UI offers). */
export function useCurrentUser(): CurrentUser {
  const user = useContext(UserContext);
  if (!user) throw new Error("useCurrentUser outside the signed-in shell");
  return user;
}

export const canTriage = (u: CurrentUser) => u.scopes.includes("triage");
export const isAdmin = (u: CurrentUser) => u.scopes.includes("admin");

export function Providers({ user, children }: { user: CurrentUser; children: ReactNode }) {
  const [client] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 10_000, retry: 1 } } }));
  return (
    <UserContext.Provider value={user}>
      <QueryClientProvider client={client}>
        <NuqsAdapter>{children}</NuqsAdapter>
      </QueryClientProvider>
    </UserContext.Provider>
  );
}
