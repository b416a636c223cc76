// What detection produces. The interruption vocabulary (types, severities) is lib/domain's.
import type { InterruptionType } from "../domain/interruptions";

// For components/ only, until the browser code imports lib/domain itself (issue #12, web part):
// remove then. Everything under lib/ imports lib/domain directly (tests/unit/layers.test.ts).
export { INTERRUPTION_TYPES, SEVERITIES } from "../domain/interruptions";
export type { Severity } from "../domain/interruptions";

/** What a rule found: a type and its evidence (the record's `detail`). */
export type Finding = { type: InterruptionType; detail: Record<string, unknown> };
