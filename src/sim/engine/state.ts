import { Rng, STREAM_SERVICE } from '../rng.js';
import { ServiceSampler } from '../service.js';
import { RequestRing } from './ring.js';
import type { ClassQueues } from '../policies/types.js';
import type { EngineOptions, EngineSystem, FleetView } from './types.js';

/**
 * The servers' state during a run, as flat arrays the event loop (run.ts) keeps in locals:
 * per server a, its batch in service and its wake-up; per (server, class) at a·C + c, its
 * queue and service-time sampler. It is also the FleetView routers read, so they see the very
 * state the engine acts on.
 */
export class ServerState implements FleetView {
  readonly size: number;
  readonly rings: RequestRing[] = [];
  readonly samplers: ServiceSampler[] = [];
  /** Completion time of the running batch; < 0 while idle. */
  readonly doneAt: Float64Array;
  /** While idle and waiting: when a policy asked to decide again (Infinity: at the next arrival). */
  readonly wakeAt: Float64Array;
  /** Requests in the running batch. */
  readonly inServiceN: Float64Array;
  /** Classes in the running batch, one bit each. */
  readonly batchMask: Int32Array;
  /** The running batch: service time, choosing class (−1: mixed), computed size, start when measured (else −1). */
  readonly lastT: Float64Array;
  readonly lastCls: Int32Array;
  readonly lastSize: Int32Array;
  readonly lastStart: Float64Array;
  /** The time routers see (remaining()). */
  now = 0;
  private readonly perItemW: Float64Array;

  constructor(
    sys: EngineSystem,
    private readonly C: number,
    o: EngineOptions,
  ) {
    const N = sys.servers.length;
    this.size = N;
    this.perItemW = new Float64Array(N * C);
    sys.servers.forEach((s, a) => {
      // One service stream per server, shared by its classes: server 0's is the single-server simulator's.
      const rng = new Rng(o.seed, STREAM_SERVICE + a);
      for (let c = 0; c < C; c++) {
        this.rings.push(new RequestRing(o.maxQueued, o.overflow, C > 1, o.onServed !== undefined));
        this.samplers.push(new ServiceSampler(s.service[c].meanService, s.service[c], rng));
        this.perItemW[a * C + c] = s.service[c].meanService[s.maxBatchSize] / s.maxBatchSize;
      }
    });
    this.doneAt = new Float64Array(N).fill(-1);
    this.wakeAt = new Float64Array(N).fill(Infinity);
    this.inServiceN = new Float64Array(N);
    this.batchMask = new Int32Array(N);
    this.lastT = new Float64Array(N);
    this.lastCls = new Int32Array(N);
    this.lastSize = new Int32Array(N);
    this.lastStart = new Float64Array(N).fill(-1);
  }

  /** Server a's queues, read-only, for policies that decide on every class's count (bindClasses). */
  classQueues(a: number): ClassQueues {
    const rings = this.rings.slice(a * this.C, (a + 1) * this.C);
    return { classes: this.C, count: (c) => rings[c].count, at: (c, i) => rings[c].at(i) };
  }

  waiting(a: number): number {
    let n = 0;
    for (let c = 0; c < this.C; c++) n += this.rings[a * this.C + c].count;
    return n;
  }
  waitingOf(a: number, c: number): number {
    return this.rings[a * this.C + c].count;
  }
  inService(a: number): number {
    return this.inServiceN[a];
  }
  remaining(a: number): number {
    return this.doneAt[a] > this.now ? this.doneAt[a] - this.now : 0;
  }
  serving(a: number, c: number): boolean {
    return this.doneAt[a] > this.now && (this.batchMask[a] & (1 << c)) !== 0;
  }
  perItem(a: number, c: number): number {
    return this.perItemW[a * this.C + c];
  }
}
