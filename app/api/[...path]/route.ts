// Every /api path that no other route matches (Next prefers the specific routes).
import { noSuchRoute } from "@/lib/api/route";

export const GET = noSuchRoute;
export const POST = noSuchRoute;
export const PUT = noSuchRoute;
export const PATCH = noSuchRoute;
export const DELETE = noSuchRoute;
