import * as c from "@/lib/api/contracts/spend";
import { handle } from "@/lib/api/route";
import { config } from "@/lib/config/load";

export const dynamic = "force-dynamic";

export const GET = handle(c.prices, async () => ({ currency: "USD" as const, unit: "per_million_tokens" as const, models: config().pricing }));
