import type { ReactNode } from "react";
import { Nav } from "@/components/shell/Nav";
import { Providers } from "@/components/shell/Providers";
import { requireUser } from "@/lib/auth/requireUser";

export const dynamic = "force-dynamic";

/**
 * Every page but /login needs a signed-in user. The layout checks, and so does each page itself
 * (requireUser): a layout is not re-rendered on client navigation and does not stop its page.
 */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  return (
    <Providers user={user}>
      <Nav />
      <main className="mx-auto max-w-[1400px] px-4 py-4">{children}</main>
    </Providers>
  );
}
