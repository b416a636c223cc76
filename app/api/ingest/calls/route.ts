import { ingestCallsRoute } from "@/lib/api/ingestRoutes";

// Also answered beside Next.js, by the same handler (lib/server/directRoutes.ts).
export const POST = ingestCallsRoute;
