// Forwarders (SPEC §7 dead-loop action): `sightdesk forward` registers its control listener here.
import { z } from "zod";
import { contract } from "../contract";
import { httpUrl } from "./webhooks";

const tag = "forwarders";

const forwarderSchema = z.object({
  host: z.string(),
  url: z.string(),
  registered_by: z.string().nullable(),
  created_at_ns: z.int(),
  last_seen_at_ns: z.int().describe("its last registration (forwarders re-register every minute)"),
});

export const listForwarders = contract({
  method: "GET", path: "/api/forwarders", tag, scope: "admin", response: z.array(forwarderSchema),
  summary: "Registered forwarders, one per agent host (never their signing keys).",
});
export const registerForwarder = contract({
  method: "POST", path: "/api/forwarders", tag, scope: "forwarder",
  body: z.object({
    host: z.string().trim().min(1).max(255).describe("the host name its forwarded calls carry"),
    url: httpUrl.describe("base URL of its control listener; terminate requests go to <url>/terminate. Must not be (or resolve to) a loopback, private, link-local or other non-public address unless outbound.allow_private lists its range (400)"),
    secret: z.string().min(32).max(256).describe("HMAC-SHA256 key the server signs terminate requests with"),
  }),
  response: forwarderSchema,
  summary: "Register (or re-register) the forwarder of a host, where dead-loop terminate requests for its processes go. Needs the forwarder scope (not ingest). 409 when another token registered that host (an admin may take it over).",
});
