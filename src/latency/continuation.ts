import type { CompiledModel } from '../model/compile.js';
import { LimitError } from '../model/errors.js';
import { actionAt, type Policy } from '../policy/policy.js';
import { behindCap } from './clamp.js';

/**
 * The remaining time of a tagged request under deterministic service, from an epoch with k requests
 * ahead of it and m behind (level k + 1 + m), as an exact finite mixture Σ c·(D + Erlang(n, λ)):
 * D the sum of the batch times still to come (its own batch included), n the arrivals it waits for
 * while the server idles. docs/model.md §9:
 *   wait (a = 0):  C(k, m) = Exp(λ) + C(k, m + 1)            → every term n + 1
 *   serve a > k:   C(k, m) = l(a)                             → one term (l(a), 0)
 *   serve a ≤ k:   C(k, m) = l(a) + Σ_K P(K_a = K)·C(k − a, m + K)
 * m is capped at mCap: from level mCap + 1 ≥ max(L_pure, B_tail) on, every epoch serves B_tail
 * (L_pure = the level from which the policy is "serve min(s, B_tail)"), m never falls before the
 * tagged batch starts, so the time no longer depends on m: C(k, m ≥ mCap) = (⌊k/B⌋ + 1)·l(B).
 * The arrival-count law's truncated tail lands in mCap too, so no mass is lost there.
 *
 * Pruning is weighted by reach: ω(k, m), the share of all arrivals whose remaining time passes
 * through (k, m) (reachOf). A term c of state (k, m) moves P(R ≤ t) by at most ω·|c| wherever it
 * is used, so terms with ω·|c| < τ are dropped and a state with ω < τ gets none; `lost` sums
 * what was dropped (ω·|c|, or ω for a whole state): a bound on the total variation this causes
 * in the law of R. Rare states (deep queues, long waits) then carry a few terms, not all of theirs.
 */
export interface Continuation {
  readonly kMax: number;
  readonly mCap: number;
  /** Distinct shifts D, seconds (terms refer to them by index). */
  readonly shifts: Float64Array;
  /** Terms of state (k, m) at index k·(mCap + 1) + m: [start, end) into the flat arrays. */
  readonly start: Int32Array;
  readonly end: Int32Array;
  readonly shift: Int32Array;
  readonly waits: Int32Array;
  readonly coef: Float64Array;
  /** Σ ω·|c| over the terms dropped (ω for a state left empty): a bound on the law's total variation. */
  readonly lost: number;
}

/** Bounds that keep the mixture's memory within a few hundred MB (a result then says why it has no figures). */
const MAX_STATES = 4_000_000;
const MAX_TERMS = 1 << 25;

/** Waits per term are < 2^12 (levels where the policy waits are below mCap ≤ 4095). */
export const WAIT_RADIX = 4096;

export function continuation(model: CompiledModel, policy: Policy, kMax: number, reach: Float64Array, tau: number): Continuation {
  const l = model.params.meanService;
  const bt = policy.tailBatch;
  const mCap = behindCap(policy);
  if (mCap + 1 >= WAIT_RADIX) throw new LimitError('latency', `the policy deviates from min(s, B) up to level ${mCap}: the mixture supports ${WAIT_RADIX - 1}`);
  const W = mCap + 1;
  const states = (kMax + 1) * W;
  if (states > MAX_STATES) throw new LimitError('latency', `the mixture needs ${states} (ahead, behind) states, over its bound ${MAX_STATES}`);
  const start = new Int32Array(states);
  const end = new Int32Array(states);
  // Shifts: interned by value (sums reached in different orders differ by rounding only).
  const quantum = 1e-11 * Math.min(...Array.from({ length: model.B }, (_, i) => l[i + 1]));
  const byKey = new Map<number, number>();
  const shifts: number[] = [];
  const intern = (D: number): number => {
    const key = Math.round(D / quantum);
    let id = byKey.get(key);
    if (id === undefined) {
      id = shifts.length;
      shifts.push(D);
      byKey.set(key, id);
    }
    return id;
  };
  const B1 = model.B + 1;
  let plus = new Int32Array(1024 * B1).fill(-1);
  const shifted = (id: number, a: number): number => {
    if ((id + 1) * B1 > plus.length) {
      const p2 = new Int32Array(Math.max(plus.length * 2, (id + 1) * B1)).fill(-1);
      p2.set(plus);
      plus = p2;
    }
    let out = plus[id * B1 + a];
    if (out < 0) plus[id * B1 + a] = out = intern(shifts[id] + l[a]);
    return out;
  };
  let cap = 1 << 16;
  let shift = new Int32Array(cap);
  let waits = new Int32Array(cap);
  let coef = new Float64Array(cap);
  let used = 0;
  const push = (id: number, n: number, c: number): void => {
    if (used === cap) {
      if (cap >= MAX_TERMS) throw new LimitError('latency', `the mixture passes ${MAX_TERMS} terms`);
      cap *= 2;
      const s2 = new Int32Array(cap);
      s2.set(shift);
      shift = s2;
      const w2 = new Int32Array(cap);
      w2.set(waits);
      waits = w2;
      const c2 = new Float64Array(cap);
      c2.set(coef);
      coef = c2;
    }
    shift[used] = id;
    waits[used] = n;
    coef[used] = c;
    used++;
  };
  // Dense accumulator over (shift, waits): waits < NW, the levels where the policy waits bound them.
  let waitLevels = 0;
  for (let s = 0; s <= mCap + kMax + 1; s++) if (actionAt(policy, s) === 0) waitLevels++;
  const NW = waitLevels + 1;
  let accC = new Float64Array(512 * NW);
  let accSeen = new Uint8Array(512 * NW);
  const touched: number[] = [];
  let lost = 0;
  // Per k, the accumulator keys of row k − a's terms shifted by l(a), computed once per (row, a):
  // every target (k, m) serving a reads them for its whole window of K.
  const rowKeys = new Map<number, Int32Array>();
  for (let k = 0; k <= kMax; k++) {
    rowKeys.clear();
    for (let m = mCap; m >= 0; m--) {
      const i = k * W + m;
      const a = actionAt(policy, k + 1 + m);
      start[i] = used;
      const w = reach[i];
      if (!(w >= tau)) {
        // Reached by less than τ of the arrivals (often by none): no terms.
        lost += w > 0 ? w : 0;
      } else if (a === 0) {
        const from = i + 1; // m < mCap here: at mCap the level is ≥ L_pure, which serves
        for (let t = start[from]; t < end[from]; t++) push(shift[t], waits[t] + 1, coef[t]);
      } else if (a > k) {
        push(intern(l[a]), 0, 1);
      } else {
        touched.length = 0;
        const off = model.pmfOffset[a];
        const st = model.pmfStart[a];
        const row = (k - a) * W;
        let keys = rowKeys.get(a);
        // the row's states were written from m = mCap down to 0: one contiguous range
        const base = start[row + mCap];
        if (!keys) {
          const top = end[row];
          keys = new Int32Array(top - base);
          let need = 1;
          for (let t = base; t < top; t++) {
            const key = (keys[t - base] = shifted(shift[t], a) * NW + waits[t]);
            if (key >= need) need = key + 1;
          }
          if (need > accC.length) {
            const c2 = new Float64Array(Math.max(2 * accC.length, need));
            c2.set(accC);
            accC = c2;
            const s2 = new Uint8Array(c2.length);
            s2.set(accSeen);
            accSeen = s2;
          }
          rowKeys.set(a, keys);
        }
        let capMass = 1;
        const below = belowCap(model, a, m, mCap);
        for (let q = 0; q <= below; q++) {
          // the last pass takes every K that reaches mCap, with the mass left
          const toCap = q === below;
          const p = toCap ? capMass : model.pmf[st + q];
          if (!toCap) capMass -= p;
          const src = toCap ? row + mCap : row + m + off + q;
          if (p > 0) {
            for (let t = start[src]; t < end[src]; t++) {
              const key = keys[t - base];
              if (accSeen[key] === 0) {
                accSeen[key] = 1;
                touched.push(key);
              }
              accC[key] += p * coef[t];
            }
          }
          if (toCap) break;
        }
        for (const key of touched) {
          const c = accC[key];
          accC[key] = 0;
          accSeen[key] = 0;
          if (w * Math.abs(c) < tau) {
            lost += w * Math.abs(c);
            continue;
          }
          push(Math.floor(key / NW), key % NW, c);
        }
      }
      end[i] = used;
    }
  }
  return {
    kMax,
    mCap,
    shifts: Float64Array.from(shifts),
    start,
    end,
    shift: shift.subarray(0, used),
    waits: waits.subarray(0, used),
    coef: coef.subarray(0, used),
    lost,
  };
}

/**
 * ω(k, m): the share of arrivals whose remaining time passes through epoch state (k, m), from the
 * entry shares (an arrival's first epoch state) pushed forward along the policy in the order the
 * states are reached (k falls; m rises while k stays), with the arrival-count law of each batch
 * (its tail at mCap, as continuation() lumps it).
 */
export function reachOf(model: CompiledModel, policy: Policy, entry: Float64Array, kMax: number, mCap: number): Float64Array {
  const W = mCap + 1;
  const om = Float64Array.from(entry);
  for (let k = kMax; k >= 0; k--) {
    for (let m = 0; m < W; m++) {
      const x = om[k * W + m];
      if (!(x > 0)) continue;
      const a = actionAt(policy, k + 1 + m);
      if (a === 0) {
        om[k * W + m + 1] += x; // m < mCap: the capped state serves
        continue;
      }
      if (a > k) continue; // the request's own batch: the time ends there
      const off = model.pmfOffset[a];
      const st = model.pmfStart[a];
      const below = belowCap(model, a, m, mCap);
      const row = (k - a) * W;
      let rest = 1;
      for (let q = 0; q < below; q++) {
        const p = model.pmf[st + q];
        om[row + m + off + q] += x * p;
        rest -= p;
      }
      om[row + mCap] += x * Math.max(0, rest);
    }
  }
  return om;
}

/**
 * How many counts K of a batch of a, from m behind, land below mCap: the first pmf entries, while
 * m + K < mCap. Every larger K (and the law's truncated tail) is lumped into mCap, in the
 * mixtures and in their reach alike.
 */
function belowCap(model: CompiledModel, a: number, m: number, mCap: number): number {
  return Math.max(0, Math.min(model.pmfLength[a], mCap - m - model.pmfOffset[a]));
}
