import { otlpTraces } from "@/lib/api/contracts/otlp";
import { handleOtlpTraces } from "@/lib/api/otlp";

export const POST = handleOtlpTraces(otlpTraces);
