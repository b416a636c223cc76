import { Suspense } from "react";
import { decodeParam } from "@/components/ui/routeParam";
import { SessionTrajectory } from "@/components/trajectory/SessionTrajectory";
import { requireUser } from "@/lib/auth/requireUser";
import { config } from "@/lib/config/load";

export const metadata = { title: "Session trajectory · SightDesk" };

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  await requireUser();
  const { id } = await params;
  return (
    <Suspense fallback={<p className="py-8 text-sm text-muted">Loading session…</p>}>
      <SessionTrajectory sessionId={decodeParam(id)} staleTurnMinutes={config().staleTurnMinutes} />
    </Suspense>
  );
}
