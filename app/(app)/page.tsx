import { Suspense } from "react";
import { Overview } from "@/components/overview/Overview";

export const metadata = { title: "Overview · SightDesk" };

export default function OverviewPage() {
  return (
    <Suspense>
      <Overview />
    </Suspense>
  );
}
