import type { ReactNode } from "react";
import "./globals.css";

export const metadata = { title: "SightDesk", description: "Interruption inbox for AI agents" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen antialiased">{children}</body>
    </html>
  );
}
