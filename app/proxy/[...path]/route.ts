// The recording proxy mounted in the server (SPEC §2.6): /proxy/openai/*, /proxy/anthropic/*, /proxy/NAME/*.
import { proxyRequest } from "@/lib/api/proxyRoute";

export const dynamic = "force-dynamic";

export const GET = proxyRequest;
export const POST = proxyRequest;
export const PUT = proxyRequest;
export const PATCH = proxyRequest;
export const DELETE = proxyRequest;
export const OPTIONS = proxyRequest;
