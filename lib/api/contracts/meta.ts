import { z } from "zod";
import { contract } from "../contract";

export const health = contract({
  method: "GET", path: "/api/health", tag: "meta", scope: null,
  response: z.object({ status: z.string() }), summary: "Liveness and database reachability (no auth, no data).",
});
export const openapi = contract({
  method: "GET", path: "/api/openapi.json", tag: "meta", scope: null,
  response: z.object({}).loose(), summary: "This document.",
});
