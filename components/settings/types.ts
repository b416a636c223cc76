// Shapes of the users and tokens APIs as the browser sees them (`*_ns` values are exact digit strings).
import type { Ns } from "@/components/api/types";

export const ROLES = ["viewer", "responder", "admin"] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = ["read", "triage", "ingest", "forwarder", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

export type UserRecord = { id: string; email: string; name: string | null; role: Role; created_at_ns: Ns };

export type TokenRecord = {
  id: string;
  name: string;
  scopes: Scope[];
  created_by: string | null;
  created_at_ns: Ns;
  expires_at_ns: Ns | null;
  last_used_at_ns: Ns | null;
  revoked_at_ns: Ns | null;
};

export type CreatedToken = TokenRecord & { token: string };

export const ROLE_HELP: Record<Role, string> = {
  viewer: "Reads interruptions, sessions and trajectories.",
  responder: "Also acknowledges, assigns, resolves and adds notes.",
  admin: "Also manages users, API tokens and settings.",
};

export const SCOPE_HELP: Record<Scope, string> = {
  read: "Read interruptions, sessions and counts",
  triage: "Acknowledge, assign, resolve, add notes",
  ingest: "Send calls and lifecycle events",
  forwarder: "Register a host's forwarder (dead-loop action; with ingest)",
  admin: "Everything, including users and tokens",
};
