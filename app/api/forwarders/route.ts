import * as c from "@/lib/api/contracts/forwarders";
import { handle } from "@/lib/api/route";
import { listForwarders, registerForwarder } from "@/lib/deadloop/forwarders";

export const GET = handle(c.listForwarders, ({ db }) => listForwarders(db));
export const POST = handle(c.registerForwarder, ({ db, body, actor }) => registerForwarder(db, body, actor));
