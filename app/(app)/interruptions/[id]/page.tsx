import { Suspense } from "react";
import { decodeParam } from "@/components/ui/routeParam";
import { InterruptionDetail } from "@/components/interruption/InterruptionDetail";
import { requireUser } from "@/lib/auth/requireUser";

export const metadata = { title: "Interruption · SightDesk" };

export default async function InterruptionPage({ params }: { params: Promise<{ id: string }> }) {
  await requireUser();
  const { id } = await params;
  return (
    <Suspense fallback={<p className="py-8 text-sm text-muted">Loading interruption…</p>}>
      <InterruptionDetail id={decodeParam(id)} />
    </Suspense>
  );
}
