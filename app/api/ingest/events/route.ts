export { ingestEventsRoute as POST } from "@/lib/api/ingestRoutes";
