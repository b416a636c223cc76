import type { NextConfig } from "next";

/**
 * No other site may show SightDesk in a frame (clickjacking): the legacy header and the CSP
 * directive, on every response — pages, API routes and their errors, 404s, static files.
 */
export const FRAME_HEADERS = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
];

const nextConfig: NextConfig = {
  // Native and driver packages are loaded from node_modules at run time, not bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg"],
  poweredByHeader: false,
  // A separate build folder lets parallel work build and serve side by side (NEXT_DIST_DIR).
  distDir: process.env.NEXT_DIST_DIR || ".next",
  async headers() {
    return [{ source: "/:path*", headers: FRAME_HEADERS }];
  },
};

export default nextConfig;
