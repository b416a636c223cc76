import * as c from "@/lib/api/contracts/tokens";
import { handle } from "@/lib/api/route";
import { revokeToken } from "@/lib/auth/apiTokens";

export const DELETE = handle(c.revokeToken, ({ db, params }) => revokeToken(db, params.id));
