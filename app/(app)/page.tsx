import { Suspense } from "react";
import { Overview } from "@/components/overview/Overview";
import { requireUser } from "@/lib/auth/requireUser";

export const metadata = { title: "Overview · SightDesk" };

export default async function OverviewPage() {
  await requireUser();
  return (
    <Suspense>
      <Overview />
    </Suspense>
  );
}
