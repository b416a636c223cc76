// Detection thresholds (SPEC §3). The values come from the one configuration (./load.ts:
// defaults ← JSON file ← environment); everything reads thresholds through `detectionConfig()`.
import type { InterruptionType, Severity } from "../domain/interruptions";
import { config, configDefaults } from "./load";

export type DetectionConfig = {
  enabled: boolean;
  tokenLimitRatio: number;
  contextOverflowInputFactor: number;
  sseTruncatedMinMs: number;
  slowResponseMs: number;
  retryStormCount: number;
  loop: {
    window: number;
    toolRepeat: number;
    similarityCount: number;
    similarity: number;
    tokenBurnCalls: number;
    busyWaitCalls: number;
  };
  severity: Record<InterruptionType, Severity>;
};

/** The SPEC §3 defaults, with no file or environment applied. */
export const DEFAULT_DETECTION: DetectionConfig = configDefaults().detection;

/** The effective detection configuration (cached; throws ConfigError when the configuration is invalid). */
export function detectionConfig(): DetectionConfig {
  return config().detection;
}
