// "Next interruption": the calls that carry an interruption marker, in display order, and
// the one after (or before) the current call, wrapping around at the ends.
import type { CallMarker } from "./types";
import type { Trajectory } from "./tree";

export type MarkerFilter = (m: CallMarker) => boolean;

/** Ids of the calls with at least one marker (passing `filter`), in display order. */
export function markedCalls(t: Trajectory, filter: MarkerFilter = () => true): string[] {
  return t.order.filter((n) => n.call.interruptions.some(filter)).map((n) => n.call.call_id);
}

export type MarkedStep = { callId: string; position: number; total: number; wrapped: boolean };

/**
 * The next (dir 1) or previous (dir −1) marked call after `current` in display order. With no
 * current call (or one that is not loaded) it starts from the top (or the bottom).
 */
export function nextMarkedCall(t: Trajectory, current: string | null, dir: 1 | -1 = 1, filter?: MarkerFilter): MarkedStep | null {
  const marked = markedCalls(t, filter);
  if (!marked.length) return null;
  const at = current === null ? undefined : t.byId.get(current)?.index;
  const indexes = marked.map((id) => t.byId.get(id)!.index);
  let pick: number;
  let wrapped = false;
  if (at === undefined) {
    pick = dir === 1 ? 0 : marked.length - 1;
  } else if (dir === 1) {
    pick = indexes.findIndex((i) => i > at);
    if (pick < 0) {
      pick = 0;
      wrapped = true;
    }
  } else {
    pick = -1;
    for (let k = indexes.length - 1; k >= 0; k--) {
      if (indexes[k] < at) {
        pick = k;
        break;
      }
    }
    if (pick < 0) {
      pick = marked.length - 1;
      wrapped = true;
    }
  }
  return { callId: marked[pick], position: pick + 1, total: marked.length, wrapped };
}
