import { throwIfAborted } from '../../model/errors.js';
import type { ArrivalStream } from '../arrivals.js';
import type { SimPolicy } from '../policies/types.js';
import { askBatch, askWake } from './contract.js';
import { HolClocks } from './hol.js';
import { Meter } from './meter.js';
import { oldestHead, slowerShare, slowestClass, takeOldest } from './mixed.js';
import type { RequestRing } from './ring.js';
import { ServerState } from './state.js';
import type { EngineOptions, EngineOutput, EngineSystem, Router } from './types.js';

/** Abort and progress are checked about this often (served requests): tens of ms at most. */
const CHECK_EVERY = 1 << 16;

/**
 * Runs the batch-service queues of spec §1 in continuous time: N servers, each with one FIFO
 * per class, fed by one arrival stream per class through a router (null: one server, nothing
 * to route). A server decides only while idle: at its batch completion, at an arrival to it,
 * and at a policy's wake-up time (Triton/TF-Serving timeouts). Arrivals win ties (lowest class
 * first), then completions and wake-ups (lowest server first). A batch takes the oldest
 * requests of the chosen class (mixed batching: of any class); its service time is drawn when
 * it starts, so each request's response time (arrival → completion of its batch) is recorded
 * then, leaving no per-request state after the start.
 *
 * arrivals[c] is class c's stream; policies[a][c] (per-class batching) or policies[a][0]
 * (mixed). The decision and the batch start are written out in this one loop on purpose: V8
 * then keeps the run's state in registers and locals; split into methods on shared state, the
 * single-server case ran 25–50 % slower. Mixed batching and head-of-line clocks (several
 * classes) are called out of line.
 */
export function runEngine(
  sys: EngineSystem,
  policies: readonly (readonly SimPolicy[])[],
  arrivals: readonly ArrivalStream[],
  router: Router | null,
  o: EngineOptions,
): EngineOutput {
  const C = arrivals.length;
  const N = sys.servers.length;
  if (router === null && N !== 1) throw new Error(`runEngine: ${N} servers need a router`);
  const mixed = sys.mixed;
  const state = new ServerState(sys, C, o);
  const meter = new Meter(sys.servers, C, o);
  const hol = C > 1 ? new HolClocks(N, C) : null;
  const { rings, samplers, doneAt, wakeAt, waitingN, inServiceN, batchMask, lastT, lastCls, lastSize, lastStart } = state;
  // Hoisted out of the loop: per server, its max batch size, busy power and service laws.
  const maxBatch = Int32Array.from(sys.servers, (s) => s.maxBatchSize);
  const busyPower = sys.servers.map((s) => s.busyPower);
  const service = sys.servers.map((s) => s.service);
  const { classHist, classSum, groupSum, groupN, accBusy, accEnergy, gBusy, gEnergy, batchSizes } = meter;
  const counts = new Int32Array(C);
  const onServed = o.onServed;
  for (const P of policies) for (const p of P) p.reset();
  // Phase-aware policies (MMPP tables) read their class's phase; a mixed policy reads class 0's.
  for (const P of policies) P.forEach((p, c) => p.bindArrivals?.(arrivals[mixed ? 0 : c]));
  router?.reset();
  const nextArr = new Float64Array(C);
  for (let c = 0; c < C; c++) nextArr[c] = arrivals[c].next();

  let now = 0;
  let served = 0;
  let tag = 0;
  let nextCheck = CHECK_EVERY;
  let stop: EngineOutput['stop'] = 'requests';
  run: for (;;) {
    // The next completion or wake-up (ties: lowest index) …
    let a = -1;
    let evT = Infinity;
    for (let s = 0; s < N; s++) {
      const t = doneAt[s] >= 0 ? doneAt[s] : wakeAt[s];
      if (t < evT) {
        evT = t;
        a = s;
      }
    }
    // … and the arrivals before it: each joins its queue, and one to an idle server is a decision epoch there.
    let arrived = false;
    for (;;) {
      let ac = 0;
      let t = nextArr[0];
      for (let c = 1; c < C; c++) {
        if (nextArr[c] < t) {
          t = nextArr[c];
          ac = c;
        }
      }
      if (t > evT) break;
      if (t === Infinity) {
        stop = 'arrivals-exhausted';
        break run;
      }
      now = t;
      nextArr[ac] = arrivals[ac].next();
      let to = 0;
      if (router !== null) {
        state.now = now;
        to = router.route(ac, state);
      }
      rings[to * C + ac].push(now, hol === null ? 0 : hol.mark(to, ac, now, doneAt[to], batchMask[to]), tag++);
      waitingN[to]++;
      if (doneAt[to] < 0) {
        a = to;
        arrived = true;
        break;
      }
    }
    if (!arrived) {
      now = evT;
      if (doneAt[a] >= 0) {
        // A completion: the policy that chose the batch hears of it (AIMD adapts its cap from it).
        doneAt[a] = -1;
        policies[a][mixed ? 0 : lastCls[a]].onBatchDone(inServiceN[a], lastT[a]);
        inServiceN[a] = 0;
      }
    }

    // ---- decision epoch at idle server a, at `now`
    const P = policies[a];
    const B = maxBatch[a];
    const base = a * C;
    let b = 0;
    let cls = -1;
    let wake = Infinity;
    if (mixed) {
      const q = waitingN[a];
      if (q > 0) {
        const oldest = oldestHead(rings, base, C);
        b = askBatch(P[0], q, now, oldest, B);
        if (b === 0) wake = askWake(P[0], q, now, oldest);
      }
    } else {
      // Among the classes whose policy wants to serve, the oldest head goes first.
      let bestHead = Infinity;
      for (let c = 0; c < C; c++) {
        const ring = rings[base + c];
        const q = ring.count;
        if (q === 0) continue;
        const head = ring.time[ring.head];
        const want = askBatch(P[c], q, now, head, B);
        if (want === 0) {
          const w = askWake(P[c], q, now, head);
          if (w < wake) wake = w;
        } else if (head < bestHead) {
          bestHead = head;
          cls = c;
          b = want;
        }
      }
    }
    if (b === 0) {
      wakeAt[a] = wake;
      continue;
    }
    wakeAt[a] = Infinity;
    if (!meter.atBatchStart(now, served)) break;

    // ---- start a batch of b at server a
    const measuring = meter.measuring;
    const pad = P[mixed ? 0 : cls].padding;
    const size = pad === null ? b : pad[b];
    let slow = cls;
    let mask = 1 << cls;
    if (mixed) {
      takeOldest(rings, base, C, b, counts);
      slow = slowestClass(service[a], counts, size);
      mask = 0;
      for (let c = 0; c < C; c++) if (counts[c] > 0) mask |= 1 << c;
    }
    const T = samplers[base + slow].sample(size);
    const done = now + T;
    for (let c = mixed ? 0 : cls; c < (mixed ? C : cls + 1); c++) {
      const n = mixed ? counts[c] : b;
      if (n === 0) continue;
      const ring = rings[base + c];
      if (measuring) {
        const time = ring.time;
        const rmask = ring.mask;
        const head = ring.head;
        const hist = classHist[c];
        // Summed per batch first, then added to the totals.
        let sum = 0;
        for (let i = 0; i < n; i++) {
          const r = done - time[(head + i) & rmask];
          sum += r;
          hist.record(r);
        }
        const g = meter.groups * C + c;
        classSum[c] += sum;
        groupSum[g] += sum;
        groupN[g] += n;
        if (hol !== null) meter.classHol[c] += hol.blocking(a, c, ring, n, mixed ? slowerShare(service[a], c, slow, size, T) : 0);
      }
      if (onServed !== undefined) report(onServed, ring, a, c, n, done);
      ring.drop(n);
    }
    hol?.advance(a, mask, T);
    if (measuring) {
      const e = busyPower[a][size] * T;
      meter.measured += b;
      accBusy[a] += T;
      accEnergy[a] += e;
      gBusy[a] += T;
      gEnergy[a] += e;
      batchSizes[a][b]++;
    }
    served += b;
    waitingN[a] -= b;
    inServiceN[a] = b;
    batchMask[a] = mask;
    lastT[a] = T;
    lastCls[a] = cls;
    lastSize[a] = size;
    lastStart[a] = measuring ? now : -1;
    doneAt[a] = done;
    if (served >= nextCheck) {
      nextCheck = served + CHECK_EVERY;
      throwIfAborted(o.signal);
      o.onProgress?.(meter.measured, o.requests);
    }
  }
  // Batches still running at the stop were counted whole: only their part inside the window stays.
  for (let s = 0; s < N; s++) {
    if (meter.started && doneAt[s] > now && lastStart[s] >= meter.windowStart) {
      const over = doneAt[s] - now;
      accBusy[s] -= over;
      accEnergy[s] -= busyPower[s][lastSize[s]] * over;
    }
  }
  return meter.finish(now, served, stop);
}

/** Tells `onServed` of the n oldest requests of ring (class c at server a), served by a batch ending at `done`. */
function report(onServed: NonNullable<EngineOptions['onServed']>, ring: RequestRing, a: number, c: number, n: number, done: number): void {
  const tags = ring.tag!;
  for (let i = 0; i < n; i++) {
    const j = (ring.head + i) & ring.mask;
    onServed(tags[j], c, a, done - ring.time[j]);
  }
}
