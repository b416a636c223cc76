/**
 * No other site may show SightDesk in a frame (clickjacking): the legacy header and the CSP
 * directive, on every response — pages, API routes and their errors, 404s, static files, and
 * the ingest routes served beside Next.js (lib/server/directRoutes.ts).
 */
export const FRAME_HEADERS = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
];
