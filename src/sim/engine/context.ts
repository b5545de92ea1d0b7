import type { ArrivalStream } from '../arrivals.js';
import type { SimPolicy } from '../policies/types.js';
import { HolClocks } from './hol.js';
import { Meter } from './meter.js';
import { ServerState } from './state.js';
import type { EngineOptions, EngineOutput, EngineServer, EngineSystem, Router } from './types.js';

/**
 * Everything one run works on, set up once: the servers' state, the meter, the policies bound
 * to their arrivals, the first arrival of each class, and the clock and counters the event loop
 * (run.ts) carries from one stretch of events to the next.
 */
export class RunContext {
  readonly C: number;
  readonly N: number;
  readonly mixed: boolean;
  readonly state: ServerState;
  readonly meter: Meter;
  /** Head-of-line clocks: only with several classes (with one there is no blocking). */
  readonly hol: HolClocks | null;
  /** Per server: max batch size, service laws by class; per (server, class) at a·C + c, busy power by size. */
  readonly maxBatch: Int32Array;
  readonly busyPower: readonly Float64Array[];
  readonly service: readonly EngineServer['service'][];
  /** Next arrival time of each class. */
  readonly nextArr: Float64Array;
  /** Per class: how many of a mixed batch's requests are of it. */
  readonly counts: Int32Array;
  now = 0;
  /** Requests started, warm-up included. */
  served = 0;
  /** Arrivals so far: the next arrival's tag. */
  tag = 0;
  stop: EngineOutput['stop'] = 'requests';

  constructor(
    readonly sys: EngineSystem,
    /** policies[a][c], or policies[a][0] with mixed batching. */
    readonly policies: readonly (readonly SimPolicy[])[],
    /** arrivals[c]: class c's stream. */
    readonly arrivals: readonly ArrivalStream[],
    /** null: one server, nothing to route. */
    readonly router: Router | null,
    readonly o: EngineOptions,
  ) {
    const C = arrivals.length;
    const N = sys.servers.length;
    if (router === null && N !== 1) throw new Error(`runEngine: ${N} servers need a router`);
    this.C = C;
    this.N = N;
    this.mixed = sys.mixed;
    this.state = new ServerState(sys, C, o);
    this.meter = new Meter(sys.servers, C, o);
    this.hol = C > 1 ? new HolClocks(N, C) : null;
    this.maxBatch = Int32Array.from(sys.servers, (s) => s.maxBatchSize);
    if (sys.mixed && sys.servers.some((s) => s.classPower)) throw new Error('runEngine: per-class busy power needs per-class batching');
    this.busyPower = sys.servers.flatMap((s) => Array.from({ length: C }, (_, c) => s.classPower?.[c] ?? s.busyPower));
    this.service = sys.servers.map((s) => s.service);
    this.counts = new Int32Array(C);
    // Policies back to their initial state; phase-aware ones (MMPP tables) read their class's
    // arrival phase, a mixed policy class 0's.
    policies.forEach((P, a) => {
      P.forEach((p, c) => {
        p.reset();
        p.bindArrivals?.(arrivals[sys.mixed ? 0 : c]);
        if (p.bindQueue) {
          if (sys.mixed || C > 1) throw new Error(`policy ${p.name} reads its queue's arrival times, so it runs with one request class only`);
          p.bindQueue(this.state.rings[a * C + c]);
        }
        if (p.bindClasses) {
          if (sys.mixed) throw new Error(`policy ${p.name} reads every class's queue, so it runs with per-class batching only`);
          p.bindClasses(this.state.classQueues(a));
        }
      });
    });
    router?.reset();
    this.nextArr = Float64Array.from(arrivals, (s) => s.next());
  }

  /** Ends the run: batches still running at the stop keep only their part inside the window. */
  finish(): EngineOutput {
    const { meter, state, now } = this;
    for (let a = 0; a < this.N; a++) {
      if (meter.started && state.doneAt[a] > now && state.lastStart[a] >= meter.windowStart) {
        const over = state.doneAt[a] - now;
        meter.accBusy[a] -= over;
        meter.accEnergy[a] -= this.busyPower[a * this.C + state.lastCls[a]][state.lastSize[a]] * over;
      }
    }
    return meter.finish(now, this.served, this.stop);
  }
}
