import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { Nav } from "@/components/shell/Nav";
import { Providers } from "@/components/shell/Providers";
import { currentUser } from "@/lib/auth/currentUser";

export const dynamic = "force-dynamic";

/** Every page but /login needs a signed-in user. */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  if (!user) redirect("/login");
  return (
    <Providers user={user}>
      <Nav />
      <main className="mx-auto max-w-[1400px] px-4 py-4">{children}</main>
    </Providers>
  );
}
