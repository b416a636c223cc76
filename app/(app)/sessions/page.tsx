import { Suspense } from "react";
import { SessionsList } from "@/components/sessions-list/SessionsList";

export const metadata = { title: "Sessions · SightDesk" };

export default function SessionsPage() {
  return (
    <Suspense>
      <SessionsList />
    </Suspense>
  );
}
