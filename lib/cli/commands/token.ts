// `sightdesk token create|list|revoke` (needs a token with the admin scope).
import { nowNs } from "../../domain/time";
import { type Context, pathId } from "../context";
import { localTime, plural, safeJson, safeLine, table } from "../format";
import { line } from "../io";
import { type TokenInfo, toCreatedToken, toToken, toTokens } from "../replies";

export type CreateOptions = { name: string; scope: string[]; expires?: string; json?: boolean };
export type JsonOption = { json?: boolean };

function state(ctx: Context, t: TokenInfo): string {
  if (t.revoked_at_ns !== null) return "revoked";
  if (t.expires_at_ns !== null && BigInt(t.expires_at_ns) <= nowNs(ctx.now())) return "expired";
  return "active";
}

const when = (ns: string | null, none: string) => (ns === null ? none : localTime(ns));

export async function create(ctx: Context, opts: CreateOptions): Promise<void> {
  const res = await ctx.client().post("/api/tokens", {
    body: { name: opts.name, scopes: opts.scope, ...(opts.expires === undefined ? {} : { expires_at: opts.expires }) },
  });
  const token = toCreatedToken(res.value);
  if (opts.json) return line(ctx.io.out, safeJson(res.text.trim()));
  line(
    ctx.io.out,
    [
      `Created token '${safeLine(token.name)}' (id ${token.id})`,
      `  scopes:  ${token.scopes.join(", ")}`,
      `  expires: ${when(token.expires_at_ns, "never")}`,
      "",
      `  ${safeLine(token.token)}`,
      "",
    ].join("\n"),
  );
  line(ctx.io.err, "Copy this token now: it will not be shown again. Use it with --token or SIGHTDESK_TOKEN.");
}

export async function list(ctx: Context, opts: JsonOption): Promise<void> {
  const res = await ctx.client().get("/api/tokens");
  const tokens = toTokens(res.value);
  if (opts.json) return line(ctx.io.out, safeJson(res.text.trim()));
  if (!tokens.length) return line(ctx.io.out, "No API tokens.");
  ctx.io.out(
    table(
      [{ header: "ID" }, { header: "NAME" }, { header: "SCOPES" }, { header: "CREATED" }, { header: "EXPIRES" }, { header: "LAST USED" }, { header: "STATUS" }],
      tokens.map((t) => [
        t.id,
        t.name,
        t.scopes.join(","),
        localTime(t.created_at_ns),
        when(t.expires_at_ns, "never"),
        when(t.last_used_at_ns, "never"),
        state(ctx, t),
      ]),
    ),
  );
  line(ctx.io.out, `\n${plural(tokens.length, "token")}.`);
}

export async function revoke(ctx: Context, id: string, opts: JsonOption): Promise<void> {
  const res = await ctx.client().delete(`/api/tokens/${pathId(id, "token")}`, { notFound: `Token not found: ${safeLine(id)}` });
  const token = toToken(res.value);
  if (opts.json) return line(ctx.io.out, safeJson(res.text.trim()));
  line(ctx.io.out, `Revoked token '${safeLine(token.name)}' (id ${safeLine(token.id)}); it is refused from now on.`);
}
