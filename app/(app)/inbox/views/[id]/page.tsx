// A saved view's stable link (for runbooks and chat): it opens the inbox with the view's query as
// it is now, so a view edited later still opens its current filters.
import { notFound, redirect } from "next/navigation";
import { decodeParam } from "@/components/ui/routeParam";
import { viewCaller } from "@/lib/api/viewCaller";
import { requireUser } from "@/lib/auth/requireUser";
import type { Scope } from "@/lib/auth/scopes";
import { db } from "@/lib/db/client";
import { viewInboxUrl } from "@/lib/db/queries/views";

export const dynamic = "force-dynamic";

export default async function SavedViewPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requireUser();
  const { id } = await params;
  const url = await viewInboxUrl(db(), decodeParam(id), viewCaller({ kind: "user", id: user.id, name: user.email, scopes: user.scopes as Scope[] }));
  if (!url) notFound();
  redirect(url);
}
