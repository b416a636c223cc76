export { NS_PER_HOUR, NS_PER_MS, nowNs } from "./domain/time";
