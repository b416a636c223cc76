// How a call whose bodies were recorded in part is described wherever it is shown.

const size = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} bytes`;

/** "recording truncated: 1.2 MiB not recorded", or null when the call was recorded whole. */
export function recordingTruncatedText(bytes: number | null | undefined): string | null {
  return bytes ? `recording truncated: ${size(bytes)} not recorded` : null;
}
