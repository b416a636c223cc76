import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and driver packages are loaded from node_modules at run time, not bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg"],
  poweredByHeader: false,
};

export default nextConfig;
