import * as c from "@/lib/api/contracts/tokens";
import { handle } from "@/lib/api/route";
import { createTokenAs, listTokens } from "@/lib/auth/apiTokens";

export const POST = handle(c.createToken, ({ db, body, actor }) => createTokenAs(db, actor, { name: body.name, scopes: body.scopes, expiresAtNs: body.expires_at }));

export const GET = handle(c.listTokens, ({ db }) => listTokens(db));
