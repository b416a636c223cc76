import { Suspense } from "react";
import { Inbox } from "@/components/inbox/Inbox";

export const metadata = { title: "Inbox · SightDesk" };

export default function InboxPage() {
  return (
    <Suspense fallback={<h1 className="text-lg font-semibold tracking-tight">Inbox</h1>}>
      <Inbox />
    </Suspense>
  );
}
