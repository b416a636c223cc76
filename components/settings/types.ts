// Roles and token scopes as the settings pages show them; the users and tokens response shapes
// come from the contracts (components/api/types.ts).

export const ROLES = ["viewer", "responder", "admin"] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = ["read", "triage", "ingest", "forwarder", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

export type { CreatedToken, TokenRecord, UserRecord } from "@/components/api/types";

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
