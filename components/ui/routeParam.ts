/** A dynamic route segment as the id it names (segments arrive percent-encoded). */
export function decodeParam(id: string): string {
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}
