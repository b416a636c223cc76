// Detection thresholds (SPEC §3) with their defaults. Issue 6 layers environment and file
// configuration on top; everything reads thresholds through `detectionConfig()`.
import { DEFAULT_SEVERITY, type InterruptionType, type Severity } from "../detect/types";

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

export const DEFAULT_DETECTION: DetectionConfig = {
  enabled: true,
  tokenLimitRatio: 0.95,
  contextOverflowInputFactor: 4,
  sseTruncatedMinMs: 1000,
  slowResponseMs: 120_000,
  retryStormCount: 5,
  loop: { window: 10, toolRepeat: 5, similarityCount: 3, similarity: 0.85, tokenBurnCalls: 5, busyWaitCalls: 10 },
  severity: { ...DEFAULT_SEVERITY },
};

export function detectionConfig(): DetectionConfig {
  const enabled = process.env.SIGHTDESK_DETECTION_ENABLED;
  if (enabled === "false" || enabled === "0") return { ...DEFAULT_DETECTION, enabled: false };
  return DEFAULT_DETECTION;
}
