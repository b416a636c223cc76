import { Suspense } from "react";
import { SessionsList } from "@/components/sessions/SessionsList";
import { requireUser } from "@/lib/auth/requireUser";

export const metadata = { title: "Sessions · SightDesk" };

export default async function SessionsPage() {
  await requireUser();
  return (
    <Suspense>
      <SessionsList />
    </Suspense>
  );
}
