import { Suspense } from "react";
import { SessionTrajectory } from "@/components/trajectory/SessionTrajectory";

export const metadata = { title: "Session trajectory · SightDesk" };

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense fallback={<p className="py-8 text-sm text-muted">Loading session…</p>}>
      <SessionTrajectory sessionId={decodeParam(id)} />
    </Suspense>
  );
}

function decodeParam(id: string): string {
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}
