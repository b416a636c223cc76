// Bounded memos of pure values, for hot paths that meet the same keys again and again (a tool
// call's row id, a text's word set, an imported detail). When full, a memo starts over: cheaper
// than tracking recency, and the keys that matter come back at once.

export class Memo<V> {
  private readonly values = new Map<string, V>();

  /** At most `max` keys; keys longer than `maxKeyLength` are computed every time, never kept. */
  constructor(
    private readonly max: number,
    private readonly maxKeyLength = Infinity,
  ) {}

  /** The value under `key`, from `compute` the first time (it must depend on `key` alone). */
  get(key: string, compute: () => V): V {
    if (key.length > this.maxKeyLength) return compute();
    let value = this.values.get(key);
    if (value === undefined) {
      if (this.values.size >= this.max) this.values.clear();
      value = compute();
      this.values.set(key, value);
    }
    return value;
  }
}
