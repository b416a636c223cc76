// A write that lost a race with another request: its checks passed (the record was there, the
// email free), then the other request's write came first — a double-clicked delete, an edit
// beside a delete, two sign-ups with one email. Prisma's error for it (and its message, which
// quotes the query) would answer 500; the caller gets the answer it would have had a moment later.
import { conflict, notFound } from "../domain/errors";

/** `write`, with "record not found" (P2025) as a 404 naming `missing`, and "unique value taken" (P2002) as a 409 saying `taken`. */
export async function raced<T>(write: PromiseLike<T>, answers: { missing?: string; taken?: string }): Promise<T> {
  try {
    return await write;
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    if (code === "P2025" && answers.missing) throw notFound(answers.missing);
    if (code === "P2002" && answers.taken) throw conflict(answers.taken);
    throw e;
  }
}
