// What detection produces. The interruption vocabulary (types, severities) is lib/domain's.
import type { InterruptionType } from "../domain/interruptions";

/** What a rule found: a type and its evidence (the record's `detail`). */
export type Finding = { type: InterruptionType; detail: Record<string, unknown> };
