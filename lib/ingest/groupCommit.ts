// Group commit: requests that arrive together share one transaction. A one-call request alone
// pays a whole transaction (locks, a dozen statements whatever the batch size, the commit's
// write of every page it touched); sixteen of them in one transaction pay it once.
//
// At most `concurrency` transactions at a time per database client (one on SQLite, whose
// statements share one connection; two on PostgreSQL, see groupedIngest.ts): a request queued
// while they run waits for the next. Before starting, a transaction waits one turn of the event
// loop (requests already received reach the queue) and for requests still being read or
// validated (`arrive`, at most `gatherMs`) — never on a fixed timer: a lone request commits at
// once, a burst shares a commit. Each request is answered only after the commit that holds its
// data. When a shared transaction fails, each of its requests runs again alone: a request whose
// data the database refuses fails alone, and its neighbours are stored.

/** Stores several requests in one transaction: all or nothing, one result per request, in order. */
export type CommitGroup<Req, Res> = (group: Req[]) => Promise<Res[]>;

export type GroupCommitOptions<Req> = {
  /** The size of a request (e.g. its calls); a group stops growing at `maxGroupSize` (one request may exceed it alone). */
  sizeOf: (request: Req) => number;
  maxGroupSize: number;
  /** The longest a transaction about to start waits for arriving requests to join it. */
  gatherMs: number;
  /** Transactions that may run at once (1 where they share one connection). */
  concurrency?: number;
};

type Waiter<Req, Res> = { request: Req; resolve: (result: Res) => void; reject: (e: unknown) => void };

export class GroupCommit<Req, Res> {
  private readonly queue: Waiter<Req, Res>[] = [];
  private running = 0;
  /** Requests being read or validated, which will be submitted soon. */
  private arriving = 0;
  /** The transaction gathering its group, woken when no request is arriving any more. */
  private readonly gathering = new Set<() => void>();

  constructor(
    private readonly commit: CommitGroup<Req, Res>,
    private readonly options: GroupCommitOptions<Req>,
  ) {}

  /**
   * Runs `prepare` (reading and validating a request that will then be submitted) while telling
   * the queue it is on its way, so that the next transaction waits for it.
   */
  async arrive<T>(prepare: () => Promise<T>): Promise<T> {
    this.arriving += 1;
    try {
      return await prepare();
    } finally {
      this.arriving -= 1;
      if (this.arriving === 0) for (const wake of this.gathering) wake();
    }
  }

  /** Stores `request` with whatever else is queued; resolves once its transaction committed. */
  submit(request: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      if (this.running < (this.options.concurrency ?? 1)) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running += 1;
    try {
      while (this.queue.length) {
        await this.gather();
        if (!this.queue.length) break;
        await this.run(this.nextGroup());
      }
    } finally {
      this.running -= 1;
    }
  }

  /**
   * Lets the requests whose bytes are here already reach the queue (one turn of the event loop:
   * a small request runs from its first byte to `submit` without waiting on anything), then,
   * while requests are arriving, waits for them (at most gatherMs in all) unless the group is full.
   */
  private async gather(): Promise<void> {
    const deadline = Date.now() + this.options.gatherMs;
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      const left = deadline - Date.now();
      if (this.arriving === 0 || left <= 0 || this.queuedSize() >= this.options.maxGroupSize) return;
      await this.arrivalsDone(left);
    }
  }

  /** Resolves when no request is arriving any more, or after `ms`. */
  private arrivalsDone(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.gathering.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.gathering.add(done);
    });
  }

  private queuedSize(): number {
    return this.queue.reduce((n, w) => n + this.options.sizeOf(w.request), 0);
  }

  /** The oldest requests, up to the size limit (at least one). */
  private nextGroup(): Waiter<Req, Res>[] {
    let size = this.options.sizeOf(this.queue[0].request);
    let n = 1;
    while (n < this.queue.length) {
      const next = this.options.sizeOf(this.queue[n].request);
      if (size + next > this.options.maxGroupSize) break;
      size += next;
      n += 1;
    }
    return this.queue.splice(0, n);
  }

  private async run(group: Waiter<Req, Res>[]): Promise<void> {
    let results: Res[];
    try {
      results = await this.commit(group.map((w) => w.request));
    } catch (e) {
      if (group.length === 1) return group[0].reject(e);
      for (const waiter of group) await this.run([waiter]);
      return;
    }
    group.forEach((w, i) => w.resolve(results[i]));
  }
}
