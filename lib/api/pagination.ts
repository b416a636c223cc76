function linkWith(req: Request, param: string, value: string): Record<string, string> {
  const url = new URL(req.url);
  url.searchParams.set(param, value);
  return { link: `<${url.pathname}${url.search}>; rel="next"` };
}

/** `Link: <…>; rel="next"` for a page that may continue (the body stays an array). */
export const nextLinkHeader = (req: Request, cursor: string) => linkWith(req, "cursor", cursor);

/** The same for sorts that page by offset. */
export const nextOffsetHeader = (req: Request, offset: number) => linkWith(req, "offset", String(offset));
