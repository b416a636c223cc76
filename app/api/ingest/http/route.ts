export { ingestHttpRoute as POST } from "@/lib/api/ingestRoutes";
