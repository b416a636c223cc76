/**
 * `Link: <…>; rel="next"` for a page that may continue (the body stays an array). The cursor (in
 * parameter `param`) says where the next page starts: an `offset` the request had would skip as
 * many again.
 */
export function nextLinkHeader(req: Request, cursor: string, param = "cursor"): Record<string, string> {
  const url = new URL(req.url);
  url.searchParams.delete("offset");
  url.searchParams.set(param, cursor);
  return { link: `<${url.pathname}${url.search}>; rel="next"` };
}

/** The Link header of a page read with `limit`: a full page links on from its last row; a short one is the last. */
export function pageLink<T>(req: Request, page: readonly T[], limit: number, cursorOf: (last: T) => string, param = "cursor"): Record<string, string> {
  return page.length > 0 && page.length === limit ? nextLinkHeader(req, cursorOf(page[page.length - 1]), param) : {};
}
