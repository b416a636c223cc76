// The 18 interruption types of SPEC §3.1 and their default severities live in lib/domain.
import type { InterruptionType } from "../domain/interruptions";

export { DEFAULT_SEVERITY, INTERRUPTION_TYPES, SEVERITIES, SEVERITY_WEIGHT } from "../domain/interruptions";
export type { InterruptionType, Severity } from "../domain/interruptions";

/** What a rule found: a type and its evidence (the record's `detail`). */
export type Finding = { type: InterruptionType; detail: Record<string, unknown> };
