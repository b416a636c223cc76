/**
 * `Link: <…>; rel="next"` for a page that may continue (the body stays an array). The cursor says
 * where the next page starts: an `offset` the request had would skip as many again.
 */
export function nextLinkHeader(req: Request, cursor: string): Record<string, string> {
  const url = new URL(req.url);
  url.searchParams.delete("offset");
  url.searchParams.set("cursor", cursor);
  return { link: `<${url.pathname}${url.search}>; rel="next"` };
}

