// How a call whose bodies were recorded in part (over the capture layer's size cap) is described.

/** The size left out ("4.0 MiB"), or null when the call was recorded whole. */
export function notRecordedSize(bytes: number | null | undefined): string | null {
  if (!bytes) return null;
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} bytes`;
}
