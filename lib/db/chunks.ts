/** Splits a list so each IN (…) or multi-row INSERT stays well under SQLite's bind limit. */
export function chunks<T>(items: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Runs `query` over the ids in chunks and concatenates the results. */
export async function findInChunks<T>(ids: string[], query: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const unique = [...new Set(ids)];
  const results: T[] = [];
  for (const chunk of chunks(unique)) results.push(...(await query(chunk)));
  return results;
}
