import type { Metadata } from "next";
import { headers } from "next/headers";
import { Connect } from "@/components/connect/Connect";
import { requireUser } from "@/lib/auth/requireUser";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Connect an agent · SightDesk" };

/** This server's base URL for agents: SIGHTDESK_PUBLIC_URL, else the address this page was requested at. */
async function serverUrl(): Promise<string> {
  const configured = process.env.SIGHTDESK_PUBLIC_URL?.trim();
  if (configured) return configured.replace(/\/+$/, "");
  const h = await headers();
  const host = h.get("x-forwarded-host")?.split(",")[0].trim() || h.get("host") || `localhost:${process.env.PORT || 3000}`;
  const proto = h.get("x-forwarded-proto")?.split(",")[0].trim() === "https" ? "https" : "http";
  return `${proto}://${host}`;
}

export default async function ConnectPage() {
  await requireUser();
  return <Connect server={await serverUrl()} />;
}
