// Work that follows a committed ingest without slowing it down. The server subscribes at startup
// (the dead-loop action); ingest only names what it committed, after the commit, and never waits
// for a listener. Kept on globalThis: Next.js may load this module once per route bundle.
type DeadLoopListener = (sessionIds: string[]) => void;

const KEY = Symbol.for("sightdesk.deadLoopListeners");
const holder = globalThis as unknown as { [KEY]?: Set<DeadLoopListener> };
const listeners = (holder[KEY] ??= new Set());

/** Calls `listener` after every ingest commit with dead-loop detections; returns the unsubscribe. */
export function onDeadLoopDetections(listener: DeadLoopListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The sessions (processes) that got dead_loop detections in a batch that has just committed. */
export function emitDeadLoopDetections(sessionIds: string[]): void {
  if (!sessionIds.length) return;
  for (const listener of listeners) {
    try {
      listener(sessionIds);
    } catch (e) {
      console.error(`[ingest] dead-loop listener failed: ${(e as Error)?.message ?? e}`);
    }
  }
}
