/**
 * The fleet's discrete-event engine: N accelerators, each with one FIFO per class and its
 * own batching policies, fed by one arrival stream per class (Poisson, or MMPP when the class
 * has an arrival process: src/sim/mmpp.ts, seeded like the single-server simulator's)
 * through a router.
 *
 * Semantics follow the single-server engine (src/sim/engine.ts) so that a fleet of one is
 * that simulator: decisions only while an accelerator is idle (at its batch completion,
 * at an arrival to it, at a policy's wake-up); arrivals win ties; a request's response
 * time is recorded when its batch starts; measurement starts at the first batch start after
 * `warmup` requests have started and stops at the first batch start with `requests`
 * measured; batch-means groups are cut at batch starts by measured count.
 *
 * PER_CLASS: each class has its own policy instance on each accelerator; among the classes
 * whose policy wants to serve, the one with the oldest head goes first. MIXED: one policy
 * sees the total queue; a batch takes the oldest requests of any class and runs as long as
 * its slowest class needs at that size (padding to the longest input).
 *
 * Head-of-line blocking of a request = time its accelerator spent, while it waited, serving
 * batches with none of its class, plus (MIXED) the part of its own batch's time due to a
 * slower class: T·(1 − l_own(b)/l_slowest(b)).
 */
import { throwIfAborted } from '../model/errors.js';
import { ArrivalSource, type ArrivalStream } from '../sim/arrivals.js';
import { MmppArrivals } from '../sim/mmpp.js';
import { LogHistogram } from '../sim/histogram.js';
import type { SimPolicy } from '../sim/policies/types.js';
import { Rng, STREAM_SERVICE } from '../sim/rng.js';
import { ServiceSampler } from '../sim/service.js';
import { RequestRing } from './ring.js';
import type { FleetView, Router } from './routers.js';
import type { FleetParams } from './scenario.js';
import { acceleratorKinds } from './scenario.js';

export interface EngineOptions {
  readonly requests: number;
  readonly warmup: number;
  readonly ciBatches: number;
  readonly seed: number;
  readonly maxQueued: number;
  readonly signal?: AbortSignal;
  /** Every served request (warm-up included): its arrival tag, class, accelerator and response time. */
  readonly onServed?: (tag: number, cls: number, acc: number, response: number) => void;
}

/** Raw sums of one run; result.ts turns them into a FleetSimulation. */
export interface FleetEngineOutput {
  readonly measured: number;
  readonly warmupRequests: number;
  readonly windowSeconds: number;
  readonly classN: Float64Array;
  readonly classSum: Float64Array;
  readonly classHol: Float64Array;
  readonly classHist: readonly LogHistogram[];
  readonly accServed: Float64Array;
  readonly accBatches: Float64Array;
  readonly accBusy: Float64Array;
  readonly accEnergy: Float64Array;
  /** Per group g and class c at [g·C + c]: sum and count of response times. */
  readonly groupSum: Float64Array;
  readonly groupN: Float64Array;
  readonly groupPower: Float64Array;
  readonly groups: number;
}

/** Seed of class c's arrival stream: class 0 uses the run's seed, as the single-server simulator does. */
export function classSeed(seed: number, c: number): number {
  return (seed + c * 1_000_003) % 2 ** 53;
}

/** policies[a][c] (PER_CLASS) or policies[a][0] (MIXED). */
export function runFleetEngine(f: FleetParams, policies: readonly (readonly SimPolicy[])[], router: Router, o: EngineOptions): FleetEngineOutput {
  const C = f.classes.length;
  const N = f.accelerators;
  const mixed = f.batching === 'MIXED';
  const kindOf = acceleratorKinds(f);
  const rings: RequestRing[][] = [];
  const samplers: ServiceSampler[][] = [];
  for (let a = 0; a < N; a++) {
    const kind = f.kinds[kindOf[a]];
    const rng = new Rng(o.seed, STREAM_SERVICE + a);
    rings.push(f.classes.map(() => new RequestRing(o.maxQueued)));
    samplers.push(kind.pairs.map((p) => new ServiceSampler(p.meanService, p, rng)));
  }
  const arrivals: ArrivalStream[] = f.classes.map((cl, c) =>
    cl.arrivalProcess ? new MmppArrivals(cl.arrivalProcess, classSeed(o.seed, c)) : ArrivalSource.poisson(cl.arrivalRate, classSeed(o.seed, c)),
  );
  const nextArr = new Float64Array(C);
  for (let c = 0; c < C; c++) nextArr[c] = arrivals[c].next();
  const perItem = new Float64Array(N * C);
  for (let a = 0; a < N; a++) {
    const k = f.kinds[kindOf[a]];
    for (let c = 0; c < C; c++) perItem[a * C + c] = k.pairs[c].meanService[k.maxBatchSize] / k.maxBatchSize;
  }

  const doneAt = new Float64Array(N).fill(-1); // < 0: idle
  const wakeAt = new Float64Array(N).fill(Infinity);
  const inService = new Float64Array(N);
  const batchMask = new Int32Array(N); // classes in the running batch
  const lastT = new Float64Array(N);
  const lastCls = new Int32Array(N);
  const lastSize = new Int32Array(N);
  const lastStart = new Float64Array(N).fill(-1);
  const otherBusy = new Float64Array(N * C); // per (a, c): busy time with batches lacking c
  const waiting = new Float64Array(N);
  let now = 0;

  const view: FleetView = {
    size: N,
    waiting: (a) => waiting[a],
    waitingOf: (a, c) => rings[a][c].count,
    inService: (a) => inService[a],
    remaining: (a) => (doneAt[a] > now ? doneAt[a] - now : 0),
    serving: (a, c) => doneAt[a] > now && (batchMask[a] & (1 << c)) !== 0,
    perItem: (a, c) => perItem[a * C + c],
  };

  const classN = new Float64Array(C);
  const classSum = new Float64Array(C);
  const classHol = new Float64Array(C);
  const classHist = f.classes.map(() => new LogHistogram());
  const accServed = new Float64Array(N);
  const accBatches = new Float64Array(N);
  const accBusy = new Float64Array(N);
  const accEnergy = new Float64Array(N);
  const nb = o.ciBatches;
  const groupSum = new Float64Array(nb * C);
  const groupN = new Float64Array(nb * C);
  const groupPower = new Float64Array(nb);
  let idleWatts = 0;
  for (let a = 0; a < N; a++) idleWatts += f.kinds[kindOf[a]].idlePower;

  let served = 0;
  let measuring = o.warmup <= 0;
  let started = false;
  let windowStart = NaN;
  let measured = 0;
  let groups = 0;
  let groupEdge = Math.ceil(o.requests / nb);
  let groupStart = NaN;
  let gEnergy = 0; // busy energy of the group's batches minus the idle power they displace
  let tag = 0;
  let nextCheck = 1 << 16;

  for (let a = 0; a < N; a++) for (const p of policies[a]) p.reset();
  // Phase-aware policies (segregation's optimum under MMPP arrivals) read their class's phase.
  for (let a = 0; a < N; a++) policies[a].forEach((p, c) => p.bindArrivals?.(arrivals[mixed ? 0 : c]));
  router.reset();

  const closeGroup = (): void => {
    const span = now - groupStart;
    if (span > 0 && groups < nb) groupPower[groups++] = (gEnergy + idleWatts * span) / span;
    groupStart = now;
    gEnergy = 0;
  };

  /** Decision epoch at idle accelerator a: start a batch or set its wake-up. Returns false when the run stops. */
  const decide = (a: number): boolean => {
    const R = rings[a];
    const P = policies[a];
    let cls = -1;
    let b = 0;
    let wake = Infinity;
    if (mixed) {
      const q = waiting[a];
      if (q > 0) {
        let oldest = Infinity;
        for (let c = 0; c < C; c++) if (R[c].count > 0 && R[c].at(0) < oldest) oldest = R[c].at(0);
        b = P[0].decide(q, now, oldest);
        if (b === 0) wake = P[0].wakeAt(q, now, oldest);
      }
    } else {
      let bestHead = Infinity;
      for (let c = 0; c < C; c++) {
        const q = R[c].count;
        if (q === 0) continue;
        const head = R[c].at(0);
        const want = P[c].decide(q, now, head);
        if (want > 0) {
          if (head < bestHead) {
            bestHead = head;
            cls = c;
            b = want;
          }
        } else {
          const w = P[c].wakeAt(q, now, head);
          if (w < wake) wake = w;
        }
      }
    }
    if (b === 0) {
      wakeAt[a] = wake;
      return true;
    }
    wakeAt[a] = Infinity;
    if (!measuring && served >= o.warmup) measuring = true;
    if (measuring) {
      if (!started) {
        started = true;
        windowStart = now;
        groupStart = now;
      } else if (measured >= o.requests) {
        closeGroup();
        return false;
      } else if (measured >= groupEdge) {
        closeGroup();
        groupEdge = Math.ceil(((groups + 1) * o.requests) / nb);
      }
    }
    return startBatch(a, cls, b);
  };

  const counts = new Int32Array(C);
  const startBatch = (a: number, cls: number, b: number): boolean => {
    const kind = f.kinds[kindOf[a]];
    const R = rings[a];
    counts.fill(0);
    let slow = cls;
    let size = b;
    if (mixed) {
      // Merge the class heads by arrival time: the b oldest of any class.
      for (let i = 0; i < b; i++) {
        let pick = -1;
        let t = Infinity;
        for (let c = 0; c < C; c++) {
          if (counts[c] < R[c].count) {
            const x = R[c].at(counts[c]);
            if (x < t) {
              t = x;
              pick = c;
            }
          }
        }
        counts[pick]++;
      }
      const pad = policies[a][0].padding;
      size = pad === null ? b : pad[b];
      let worst = -1;
      for (let c = 0; c < C; c++) {
        if (counts[c] > 0 && kind.pairs[c].meanService[size] > worst) {
          worst = kind.pairs[c].meanService[size];
          slow = c;
        }
      }
    } else {
      counts[cls] = b;
      const pad = policies[a][cls].padding;
      size = pad === null ? b : pad[b];
    }
    const T = samplers[a][slow].sample(size);
    const done = now + T;
    const lSlow = kind.pairs[slow].meanService[size];
    let mask = 0;
    for (let c = 0; c < C; c++) {
      const n = counts[c];
      if (n === 0) continue;
      mask |= 1 << c;
      const ring = R[c];
      const extra = T * (1 - kind.pairs[c].meanService[size] / lSlow);
      const clock = otherBusy[a * C + c];
      const hist = classHist[c];
      // Summed per batch first, as the single-server engine does, so a fleet of one matches it bit for bit.
      let sum = 0;
      let hol = 0;
      for (let i = 0; i < n; i++) {
        const j = (ring.head + i) & ring.mask;
        const r = done - ring.time[j];
        if (measuring) {
          sum += r;
          hol += clock - ring.mark[j] + extra;
          hist.record(r);
        }
        o.onServed?.(ring.tag[j], c, a, r);
      }
      if (measuring) {
        classSum[c] += sum;
        classHol[c] += hol;
        classN[c] += n;
        groupSum[groups * C + c] += sum;
        groupN[groups * C + c] += n;
      }
      ring.drop(n);
    }
    for (let c = 0; c < C; c++) if ((mask & (1 << c)) === 0) otherBusy[a * C + c] += T;
    if (measuring) {
      const e = kind.busyPower[size] * T;
      measured += b;
      accServed[a] += b;
      accBatches[a]++;
      accBusy[a] += T;
      accEnergy[a] += e;
      gEnergy += e - kind.idlePower * T;
    }
    served += b;
    waiting[a] -= b;
    inService[a] = b;
    batchMask[a] = mask;
    lastT[a] = T;
    lastCls[a] = cls;
    lastSize[a] = size;
    lastStart[a] = measuring ? now : -1;
    doneAt[a] = done;
    return true;
  };

  for (;;) {
    // Next event: the earliest arrival (ties: lowest class), else completion/wake-up (ties: lowest index).
    let ac = 0;
    for (let c = 1; c < C; c++) if (nextArr[c] < nextArr[ac]) ac = c;
    let ev = -1;
    let evT = Infinity;
    for (let a = 0; a < N; a++) {
      const t = doneAt[a] >= 0 ? doneAt[a] : wakeAt[a];
      if (t < evT) {
        evT = t;
        ev = a;
      }
    }
    if (nextArr[ac] <= evT) {
      now = nextArr[ac];
      nextArr[ac] = arrivals[ac].next();
      const a = router.route(ac, view);
      const lacks = doneAt[a] >= 0 && (batchMask[a] & (1 << ac)) === 0;
      const mark = otherBusy[a * C + ac] - (lacks ? doneAt[a] - now : 0);
      rings[a][ac].push(now, mark, tag++);
      waiting[a]++;
      if (doneAt[a] < 0 && !decide(a)) break;
    } else {
      now = evT;
      if (doneAt[ev] >= 0) {
        doneAt[ev] = -1;
        // The policy that chose the batch hears about it (AIMD adapts its cap from it).
        policies[ev][mixed ? 0 : lastCls[ev]].onBatchDone(inService[ev], lastT[ev]);
        inService[ev] = 0;
      }
      if (!decide(ev)) break;
    }
    if (served >= nextCheck) {
      nextCheck = served + (1 << 16);
      throwIfAborted(o.signal);
    }
  }
  // Batches still running at the stop were counted whole; keep only their part inside the
  // window, so utilisation and power cover exactly the window. (With one accelerator the run
  // stops at its idle decision epoch, so nothing changes and it still matches src/sim.)
  for (let a = 0; a < N; a++) {
    if (started && doneAt[a] > now && lastStart[a] >= windowStart) {
      const over = doneAt[a] - now;
      accBusy[a] -= over;
      accEnergy[a] -= f.kinds[kindOf[a]].busyPower[lastSize[a]] * over;
    }
  }
  return {
    measured,
    warmupRequests: served - measured,
    windowSeconds: started ? now - windowStart : 0,
    classN,
    classSum,
    classHol,
    classHist,
    accServed,
    accBatches,
    accBusy,
    accEnergy,
    groupSum,
    groupN,
    groupPower,
    groups,
  };
}
