import { Suspense } from "react";
import { Inbox } from "@/components/inbox/Inbox";
import { requireUser } from "@/lib/auth/requireUser";

export const metadata = { title: "Inbox · SightDesk" };

export default async function InboxPage() {
  await requireUser();
  return (
    <Suspense fallback={<h1 className="text-lg font-semibold tracking-tight">Inbox</h1>}>
      <Inbox />
    </Suspense>
  );
}
