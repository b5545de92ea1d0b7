/** What the queue needs to know about a job. */
export interface Queued {
  /** The call the job belongs to: jobs of one flow run in order, flows take turns. */
  readonly flow: string;
  /** Batch work (a batch's solves, its validation slices) or a single call's job. */
  readonly batch: boolean;
  /** The client connection the call came on (gRPC's peer), if known. */
  readonly peer?: string;
}

/**
 * The pool's waiting room: fair queueing in two levels. Single calls and batch work take turns
 * (when both wait, every other job handed out is a single call's, however many batches run),
 * and within each class the calls (flows) take turns, each flow's jobs in order. So a batch,
 * which keeps a job waiting for every worker it could use, cannot starve single calls, and a
 * caller with many calls waiting does not delay the others by all of them.
 */
export class FairQueue<T extends Queued> {
  private readonly classes: [Map<string, T[]>, Map<string, T[]>] = [new Map(), new Map()];
  /** The class to serve first next time: 0 single calls, 1 batch work. */
  private turn = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** Jobs of single calls waiting (what maxQueuedSolves bounds). */
  get singles(): number {
    let n = 0;
    for (const jobs of this.classes[0].values()) n += jobs.length;
    return n;
  }

  push(job: T): void {
    const flows = this.classes[job.batch ? 1 : 0];
    const jobs = flows.get(job.flow);
    if (jobs) jobs.push(job);
    else flows.set(job.flow, [job]);
    this.count++;
  }

  /** The next job: the class whose turn it is (the other if it has none), its first flow's first job; that flow goes last. */
  shift(): T | undefined {
    for (const c of [this.turn, 1 - this.turn]) {
      const flows = this.classes[c];
      const first = flows.entries().next();
      if (first.done) continue;
      const [flow, jobs] = first.value;
      const job = jobs.shift()!;
      flows.delete(flow);
      if (jobs.length > 0) flows.set(flow, jobs); // re-inserted: to the back of the turn order
      this.turn = 1 - c;
      this.count--;
      return job;
    }
    return undefined;
  }

  remove(job: T): boolean {
    const flows = this.classes[job.batch ? 1 : 0];
    const jobs = flows.get(job.flow);
    const i = jobs ? jobs.indexOf(job) : -1;
    if (!jobs || i < 0) return false;
    jobs.splice(i, 1);
    if (jobs.length === 0) flows.delete(job.flow);
    this.count--;
    return true;
  }

  /** Calls of this peer with a job waiting (what maxQueuedPerPeer bounds). */
  callsWaitingOf(peer: string): number {
    let n = 0;
    for (const flows of this.classes) for (const jobs of flows.values()) if (jobs[0]?.peer === peer) n++;
    return n;
  }

  /** Whether this call already has a job waiting. */
  hasFlow(flow: string): boolean {
    return this.classes[0].has(flow) || this.classes[1].has(flow);
  }

  /** Takes every job out (shutdown). */
  drain(): T[] {
    const out: T[] = [];
    for (const flows of this.classes) {
      for (const jobs of flows.values()) out.push(...jobs);
      flows.clear();
    }
    this.count = 0;
    return out;
  }
}
