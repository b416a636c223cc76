import * as c from "@/lib/api/contracts/meta";
import { openApiDocument } from "@/lib/api/openapi";
import { handle } from "@/lib/api/route";

export const GET = handle(c.openapi, async () => openApiDocument());
