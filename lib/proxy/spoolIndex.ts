// The spool's files as the sender knows them, oldest first, with their total size: the directory
// is read once (at start: what an earlier run left), then the index follows what the sender
// writes and removes. Reading and stat-ing the whole directory at every write and every send
// attempt cost time in proportion to the files, once a second through an outage: quadratic in
// its length.
import fs from "node:fs";
import path from "node:path";

export type SpoolFile = { name: string; size: number };

export class SpoolIndex {
  /** by name (names sort in send order); entries before `head` are gone */
  private files: SpoolFile[] = [];
  private head = 0;
  private total = 0;

  constructor(
    private readonly dir: string,
    private readonly suffix: string,
  ) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir).filter((f) => f.endsWith(suffix)).sort();
    } catch {
      /* no directory yet: nothing spooled */
    }
    for (const name of names) this.files.push({ name, size: fs.statSync(path.join(dir, name), { throwIfNoEntry: false })?.size ?? 0 });
    this.total = this.files.reduce((n, f) => n + f.size, 0);
  }

  get count(): number {
    return this.files.length - this.head;
  }

  get bytes(): number {
    return this.total;
  }

  oldest(): SpoolFile | undefined {
    return this.files[this.head];
  }

  /** A file just written. Names mostly come in order: the search starts from the end. */
  add(file: SpoolFile): void {
    let at = this.files.length;
    while (at > this.head && this.files[at - 1].name > file.name) at--;
    this.files.splice(at, 0, file);
    this.total += file.size;
  }

  /** A file no longer in the spool (sent or dropped); nothing when it is not listed. */
  remove(name: string): void {
    const at = this.find(name);
    if (at < 0) return;
    this.total -= this.files[at].size;
    if (at === this.head) this.head++;
    else this.files.splice(at, 1);
    // the gone entries are let go of once they are half the array: constant time per removal on average
    if (this.head > 64 && this.head * 2 > this.files.length) {
      this.files = this.files.slice(this.head);
      this.head = 0;
    }
  }

  private find(name: string): number {
    let lo = this.head;
    let hi = this.files.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const n = this.files[mid].name;
      if (n === name) return mid;
      if (n < name) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
