// Saved inbox views (issue 15): CRUD for the view menu and for runbooks that link to a view.
// Any reader may save views; a private view is its owner's alone, a shared one is seen by all
// and changed by its owner or an admin.
import { z } from "zod";
import { MAX_VIEW_QUERY } from "../../domain/inboxQuery";
import { contract } from "../contract";
import type { ResponseOf } from "./wire";

const tag = "views";
const ns = z.int();

const viewSchema = z.object({
  id: z.string(),
  name: z.string(),
  query: z.string().describe("the inbox's query string (filters, sort, grouping) in canonical form"),
  shared: z.boolean(),
  owner: z.string().describe("who made it (user:<email> or token:<name>)"),
  mine: z.boolean(),
  can_edit: z.boolean().describe("whether the caller may change or delete it"),
  url: z.string().describe("a stable link to the view (/inbox/views/<id>): it opens the inbox with the view's current query"),
  inbox_url: z.string().describe("the inbox with this view's query and view=<id>"),
  unresolved: z.int().nullable().describe("unresolved interruptions the view matches now (null in a delete's answer)"),
  created_at_ns: ns,
  updated_at_ns: ns,
  updated_by: z.string(),
});

const name = z.string().trim().min(1, "must not be empty").max(100);
const query = z.string().max(MAX_VIEW_QUERY).describe("an inbox query string such as `severity=critical&agent_name=CoshNG` (a leading ? is fine); `view` and `pages` are dropped");

export const listViews = contract({
  method: "GET", path: "/api/views", tag, scope: "read", response: z.array(viewSchema),
  summary: "The caller's views and every shared view, by name, each with its count of unresolved matching interruptions.",
});
export const createView = contract({
  method: "POST", path: "/api/views", tag, scope: "read", status: 201,
  body: z.object({ name, query, shared: z.boolean().default(false) }),
  response: viewSchema,
  summary: "Save inbox filters under a name, private (default) or shared with the team (409 when the name is taken there, or the caller has 100 views already).",
});
export const getView = contract({
  method: "GET", path: "/api/views/{id}", tag, scope: "read", response: viewSchema,
  summary: "One view (404 for someone else's private view).",
});
export const updateView = contract({
  method: "POST", path: "/api/views/{id}", tag, scope: "read",
  body: z
    .object({ name: name.optional(), query: query.optional(), shared: z.boolean().optional() })
    .refine((b) => b.name !== undefined || b.query !== undefined || b.shared !== undefined, { message: "give at least one field to change", path: ["name"] }),
  response: viewSchema,
  summary: "Rename a view, replace its filters or share it; its owner, or an admin for a shared view (403 otherwise).",
});
export const deleteView = contract({
  method: "DELETE", path: "/api/views/{id}", tag, scope: "read", response: viewSchema,
  summary: "Delete a view; its owner, or an admin for a shared view.",
});

export type SavedViewRecord = ResponseOf<typeof getView>;
