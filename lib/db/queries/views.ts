// Saved inbox views (issue 15): the inbox's filters under a name, private or shared, each with
// the count of unresolved interruptions it matches now. The counts of every view a caller sees
// come from one statement (a UNION ALL of the list filter's SQL, lib/db/queries/filterSql.ts).
import crypto from "node:crypto";
import { conflict, forbidden, notFound } from "../../domain/errors";
import { normalizeViewQuery, viewFilter } from "../../domain/inboxQuery";
import { UNRESOLVED_STATUSES, type InterruptionFilter } from "../../domain/interruptions";
import type { Db } from "../client";
import type { SavedView } from "../generated/client";
import { raced } from "../raced";
import { readSql } from "../sql";
import { filterSql } from "./filterSql";

/** Who is asking, as views see them (lib/api/viewCaller.ts builds it from the actor). */
export type ViewCaller = {
  /** `user:<id>` or `token:<id>`: owns the views it makes */
  key: string;
  /** shown as the owner and in updated_by (`user:<email>`) */
  name: string;
  /** what `assignee=me` means for this caller (a user's email, a token's name) */
  me: string;
  admin: boolean;
};

export type ViewInput = { name: string; query: string; shared: boolean };

/** Views counted per statement (SQLite allows 500 terms in a compound SELECT)… */
const COUNT_CHUNK = 100;
/** …and values bound per statement (SQLite binds 32,766; a view of long lists binds thousands). */
const COUNT_PARAMS = 10_000;

const visible = (v: SavedView, c: ViewCaller) => v.shared || v.ownerKey === c.key;
/** Owners change their views; admins change shared ones too. */
const editable = (v: SavedView, c: ViewCaller) => v.ownerKey === c.key || (v.shared && c.admin);

/** The inbox URL a view opens: its query plus `view=<id>`, which names it in the menu. */
export const inboxUrlOf = (v: Pick<SavedView, "id" | "query">) => `/inbox?${v.query ? `${v.query}&` : ""}view=${encodeURIComponent(v.id)}`;

function viewRecord(v: SavedView, caller: ViewCaller, unresolved: number | null) {
  return {
    id: v.id,
    name: v.name,
    query: v.query,
    shared: v.shared,
    owner: v.ownerName,
    mine: v.ownerKey === caller.key,
    can_edit: editable(v, caller),
    url: `/inbox/views/${encodeURIComponent(v.id)}`,
    inbox_url: inboxUrlOf(v),
    unresolved,
    created_at_ns: v.createdAtNs,
    updated_at_ns: v.updatedAtNs,
    updated_by: v.updatedBy,
  };
}

export type ViewRecord = ReturnType<typeof viewRecord>;

/** The unresolved interruptions a view matches now (its status filters narrowed to unresolved). */
function countFilter(query: string, caller: ViewCaller, nowNs: bigint): InterruptionFilter {
  const f = viewFilter(query, nowNs);
  return {
    ...f,
    statuses: (f.statuses ?? [...UNRESOLVED_STATUSES]).filter((s) => UNRESOLVED_STATUSES.includes(s)),
    assignees: f.assignees?.map((a) => (a === "me" ? caller.me : a)),
  };
}

/** Each view's unresolved count, by view id. */
export async function countViews(db: Db, views: SavedView[], caller: ViewCaller, nowNs: bigint): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const sql = readSql(db);
  let parts: string[] = [];
  let params: unknown[] = [];
  const flush = async () => {
    if (parts.length) for (const r of await sql.all(parts.join(" UNION ALL "), params)) counts.set(String(r.view), Number(r.n));
    [parts, params] = [[], []];
  };
  for (const v of views) {
    const where = filterSql(countFilter(v.query, caller, nowNs));
    if (parts.length === COUNT_CHUNK || params.length + 1 + where.params.length > COUNT_PARAMS) await flush();
    parts.push(`SELECT CAST(? AS TEXT) AS "view", COUNT(*) AS "n" FROM "Interruption" WHERE ${where.sql}`);
    params.push(v.id, ...where.params);
  }
  await flush();
  return counts;
}

/** The caller's own views and every shared one, by name, with their counts. */
export async function listViews(db: Db, caller: ViewCaller, nowNs: bigint) {
  const views = await db.savedView.findMany({ where: { OR: [{ shared: true }, { ownerKey: caller.key }] }, orderBy: [{ name: "asc" }, { id: "asc" }] });
  const counts = await countViews(db, views, caller, nowNs);
  return views.map((v) => viewRecord(v, caller, counts.get(v.id) ?? 0));
}

/** A view the caller may see (a private view of someone else is not found). */
async function findVisible(db: Db, id: string, caller: ViewCaller): Promise<SavedView> {
  const v = await db.savedView.findUnique({ where: { id } });
  if (!v || !visible(v, caller)) throw notFound("View not found");
  return v;
}

async function findEditable(db: Db, id: string, caller: ViewCaller): Promise<SavedView> {
  const v = await findVisible(db, id, caller);
  if (!editable(v, caller)) throw forbidden("Only the view's owner or an admin can change a shared view");
  return v;
}

export async function getView(db: Db, id: string, caller: ViewCaller, nowNs: bigint) {
  const v = await findVisible(db, id, caller);
  return viewRecord(v, caller, (await countViews(db, [v], caller, nowNs)).get(v.id) ?? 0);
}

/** Another view of the same name where it would show: among shared views, or among the owner's private ones. */
async function assertNameFree(db: Db, name: string, shared: boolean, ownerKey: string, exceptId?: string): Promise<void> {
  const same = await db.savedView.findFirst({
    where: { name, shared, ...(shared ? {} : { ownerKey }), ...(exceptId ? { id: { not: exceptId } } : {}) },
    select: { id: true },
  });
  if (same) throw conflict(`${shared ? "A shared view" : "One of your views"} is already named '${name}'`);
}

/**
 * Views one person (or token) may own: every inbox lists the shared ones with a count each, so
 * one caller creating views without end would slow every team member's view menu.
 */
export const MAX_VIEWS_PER_OWNER = 100;

export async function createView(db: Db, input: ViewInput, caller: ViewCaller, nowNs: bigint) {
  const query = normalizeViewQuery(input.query);
  if ((await db.savedView.count({ where: { ownerKey: caller.key } })) >= MAX_VIEWS_PER_OWNER) {
    throw conflict(`You have ${MAX_VIEWS_PER_OWNER} saved views, the most one can keep: delete one first`);
  }
  await assertNameFree(db, input.name, input.shared, caller.key);
  const v = await db.savedView.create({
    data: {
      id: crypto.randomBytes(9).toString("base64url"),
      name: input.name,
      query,
      shared: input.shared,
      ownerKey: caller.key,
      ownerName: caller.name,
      createdAtNs: nowNs,
      updatedAtNs: nowNs,
      updatedBy: caller.name,
    },
  });
  return viewRecord(v, caller, (await countViews(db, [v], caller, nowNs)).get(v.id) ?? 0);
}

export async function updateView(db: Db, id: string, patch: Partial<ViewInput>, caller: ViewCaller, nowNs: bigint) {
  const current = await findEditable(db, id, caller);
  const query = patch.query === undefined ? undefined : normalizeViewQuery(patch.query);
  const name = patch.name ?? current.name;
  const shared = patch.shared ?? current.shared;
  if (name !== current.name || shared !== current.shared) await assertNameFree(db, name, shared, current.ownerKey, id);
  const v = await raced(db.savedView.update({ where: { id }, data: { name, query, shared, updatedAtNs: nowNs, updatedBy: caller.name } }), { missing: "View not found" });
  return viewRecord(v, caller, (await countViews(db, [v], caller, nowNs)).get(v.id) ?? 0);
}

export async function deleteView(db: Db, id: string, caller: ViewCaller) {
  const v = await findEditable(db, id, caller);
  await raced(db.savedView.delete({ where: { id } }), { missing: "View not found" });
  return viewRecord(v, caller, null);
}

/** Where /inbox/views/<id> leads: the view's inbox URL, or null when the caller may not see it. */
export async function viewInboxUrl(db: Db, id: string, caller: Pick<ViewCaller, "key">): Promise<string | null> {
  const v = await db.savedView.findUnique({ where: { id } });
  return v && (v.shared || v.ownerKey === caller.key) ? inboxUrlOf(v) : null;
}
