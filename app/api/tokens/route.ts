import { actorName } from "@/lib/auth/actor";
import * as c from "@/lib/api/contracts/tokens";
import { handle } from "@/lib/api/route";
import { createToken, listTokens } from "@/lib/auth/apiTokens";

export const POST = handle(c.createToken, ({ db, body, actor }) =>
  createToken(db, { name: body.name, scopes: body.scopes, expiresAtNs: body.expires_at, createdBy: actorName(actor) }),
);

export const GET = handle(c.listTokens, ({ db }) => listTokens(db));
