export { ingestCallsRoute as POST } from "@/lib/api/ingestRoutes";
