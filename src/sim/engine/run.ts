import { throwIfAborted } from '../../model/errors.js';
import type { ArrivalStream } from '../arrivals.js';
import type { SimPolicy } from '../policies/types.js';
import { batchError, wakeError } from './contract.js';
import { RunContext } from './context.js';
import { oldestHead, slowerShare, slowestClass, takeOldest } from './mixed.js';
import type { RequestRing } from './ring.js';
import type { EngineOptions, EngineOutput, EngineSystem, Router } from './types.js';

/** Abort and progress are checked about this often (served requests): tens of ms at most. */
const CHECK_EVERY = 1 << 16;

/**
 * Runs the batch-service queues of docs/model.md §1 in continuous time: N servers, each with one FIFO
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
  const run = new RunContext(sys, policies, arrivals, router, o);
  while (advance(run, run.served + CHECK_EVERY)) {
    throwIfAborted(o.signal);
    o.onProgress?.(run.meter.measured, o.requests);
  }
  return run.finish();
}

/**
 * Runs events until `until` requests have started (true: the run goes on) or the run stops
 * (false). The run is cut into these stretches so that V8 optimises this function as a whole,
 * once, and reuses that code in every later stretch and run: a single loop over a whole run is
 * optimised on the stack (OSR) again in every run, which cost tens of ms of compiling each time.
 * The run's state lives in locals here, written back at the end of the stretch.
 */
function advance(run: RunContext, until: number): boolean {
  const { C, N, mixed, policies, arrivals, router, state, meter, hol, maxBatch, busyPower, service, nextArr, counts } = run;
  const { rings, samplers, doneAt, wakeAt, inServiceN, batchMask, lastT, lastCls, lastSize, lastStart } = state;
  const { classHist, classSum, groupSum, groupN, accBusy, accEnergy, gBusy, gEnergy, batchSizes } = meter;
  const onServed = run.o.onServed;
  let now = run.now;
  let served = run.served;
  let tag = run.tag;
  let more = true;
  events: for (;;) {
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
    if (router === null && C === 1 && onServed === undefined && doneAt[0] >= 0) {
      // One server with one class, busy until evT: the arrivals before then can only queue.
      // The single-server simulator spends most of its time here, so this loop is kept bare
      // (its ring keeps neither marks nor tags; the tag count moves on by the arrivals queued).
      const ring = rings[0];
      const source = arrivals[0];
      const before = ring.count;
      let t = nextArr[0];
      for (; t <= evT; t = source.next()) ring.pushTime(t);
      nextArr[0] = t;
      tag += ring.count - before;
    } else {
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
          run.stop = 'arrivals-exhausted';
          more = false;
          break events;
        }
        now = t;
        nextArr[ac] = arrivals[ac].next();
        let to = 0;
        if (router !== null) {
          state.now = now;
          to = router.route(ac, state);
        }
        rings[to * C + ac].push(now, hol === null ? 0 : hol.mark(to, ac, now, doneAt[to], batchMask[to]), tag++);
        if (doneAt[to] < 0) {
          a = to;
          arrived = true;
          break;
        }
      }
    }
    if (!arrived) {
      now = evT;
      if (doneAt[a] >= 0) {
        // A completion: the policy that chose the batch hears of it (AIMD adapts its cap from it).
        doneAt[a] = -1;
        policies[a][lastCls[a]].onBatchDone(inServiceN[a], lastT[a]);
        inServiceN[a] = 0;
      }
    }

    // ---- decision epoch at idle server a, at `now`: each class's policy (mixed: the one policy,
    // on all classes) serves or waits, asked in ascending class order and only with a queue (a
    // joint rule, src/sim/joint, relies on it); of those that serve, the oldest head goes first.
    const P = policies[a];
    const B = maxBatch[a];
    const base = a * C;
    let b = 0;
    let cls = -1;
    let wake = Infinity;
    let bestHead = Infinity;
    for (let k = 0; k < (mixed ? 1 : C); k++) {
      const ring = rings[base + k];
      const q = mixed ? state.waiting(a) : ring.count;
      if (q === 0) continue;
      const head = mixed ? oldestHead(rings, base, C) : ring.time[ring.head];
      // The policy contract (src/sim/policies/types.ts), checked here: the calls stay inlinable.
      const policy = P[k];
      const want = policy.decide(q, now, head);
      if (want === 0) {
        const w = policy.wakeAt(q, now, head);
        if (!(w > now) && w !== Infinity) throw wakeError(policy, now, w);
        if (w < wake) wake = w;
      } else {
        if (!(want >= 1 && want <= q && want <= B && Number.isInteger(want))) throw batchError(policy, want, q, B);
        if (head < bestHead) {
          bestHead = head;
          cls = k;
          b = want;
        }
      }
    }
    if (b === 0) {
      wakeAt[a] = wake;
      continue;
    }
    wakeAt[a] = Infinity;
    // The meter acts only at group edges (and during warm-up): one comparison otherwise.
    if (meter.measured >= meter.due && !meter.atBatchStart(now, served)) {
      more = false;
      break;
    }

    // ---- start a batch of b at server a
    const measuring = meter.measuring;
    const pad = P[cls].padding;
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
      const e = busyPower[base + cls][size] * T;
      meter.measured += b;
      accBusy[a] += T;
      accEnergy[a] += e;
      gBusy[a] += T;
      gEnergy[a] += e;
      batchSizes[a][b]++;
    }
    served += b;
    inServiceN[a] = b;
    batchMask[a] = mask;
    lastT[a] = T;
    lastCls[a] = cls;
    lastSize[a] = size;
    lastStart[a] = measuring ? now : -1;
    doneAt[a] = done;
    if (served >= until) break;
  }
  run.now = now;
  run.served = served;
  run.tag = tag;
  return more;
}

/** Tells `onServed` of the n oldest requests of ring (class c at server a), served by a batch ending at `done`. */
function report(onServed: NonNullable<EngineOptions['onServed']>, ring: RequestRing, a: number, c: number, n: number, done: number): void {
  const tags = ring.tag!;
  for (let i = 0; i < n; i++) {
    const j = (ring.head + i) & ring.mask;
    onServed(tags[j], c, a, done - ring.time[j]);
  }
}
