/** Parameters a next page must repeat as the first page took them (a default the request left out). */
export type Pinned = Record<string, string>;

/**
 * `Link: <…>; rel="next"` for a page that may continue (the body stays an array). The cursor (in
 * parameter `param`) says where the next page starts: an `offset` the request had would skip as
 * many again. `pinned` are set as given: a time window the request left to its default ("the
 * last 24 h" from now) stays the first page's, or the rows that leave it while one reads would
 * be skipped.
 */
export function nextLinkHeader(req: Request, cursor: string, param = "cursor", pinned: Pinned = {}): Record<string, string> {
  const url = new URL(req.url);
  url.searchParams.delete("offset");
  for (const [name, value] of Object.entries(pinned)) url.searchParams.set(name, value);
  url.searchParams.set(param, cursor);
  return { link: `<${url.pathname}${url.search}>; rel="next"` };
}

/** The Link header of a page read with `limit`: a full page links on from its last row; a short one is the last. */
export function pageLink<T>(req: Request, page: readonly T[], limit: number, cursorOf: (last: T) => string, param = "cursor", pinned: Pinned = {}): Record<string, string> {
  return page.length > 0 && page.length === limit ? nextLinkHeader(req, cursorOf(page[page.length - 1]), param, pinned) : {};
}

/** A filter's time window as the parameters that give it. */
export const windowParams = (f: { startNs: bigint; endNs: bigint }): Pinned => ({ start_ns: String(f.startNs), end_ns: String(f.endNs) });
