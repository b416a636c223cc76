/**
 * Items by key, each group in the items' order, in one pass. (Copying a group to add each item,
 * `[...(m.get(k) ?? []), item]`, costs time quadratic in the largest group's size.)
 */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
