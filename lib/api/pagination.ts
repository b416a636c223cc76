/** `Link: <…>; rel="next"` for a page that may continue (the body stays an array). */
export function nextLinkHeader(req: Request, cursor: string): Record<string, string> {
  const url = new URL(req.url);
  url.searchParams.set("cursor", cursor);
  return { link: `<${url.pathname}${url.search}>; rel="next"` };
}
