import type { CompiledModel } from '../model/compile.js';

/** What a later solve of a similar scenario can start from. */
export interface WarmStart {
  readonly values?: Float64Array;
  readonly policy?: Int32Array;
  /** Arrival phases of the solve it came from (absent = 1). A start with other phases is ignored. */
  readonly phases?: number;
}

/**
 * Adapts values/policy solved at another S to `model`: cut, or extended per phase
 * quadratically (values) and by serving min(s, B) (policy). Undefined when the start has
 * another number of phases.
 */
export function fitWarmStart(w: WarmStart | undefined, model: CompiledModel): { values?: Float64Array; policy?: Int32Array } | undefined {
  const { S, M, B } = model;
  if (!w || (w.phases ?? 1) !== M) return undefined;
  const n = (S + 1) * M;
  const out: { values?: Float64Array; policy?: Int32Array } = {};
  if (w.values && w.values.length >= 3 * M && w.values.length % M === 0) {
    const src = w.values;
    const v = new Float64Array(n);
    const m = Math.min(n, src.length);
    v.set(src.subarray(0, m));
    const top = src.length / M - 1;
    for (let x = m; x < n; x++) {
      const j = x % M;
      const h = (t: number): number => src[t * M + j];
      const d1 = h(top) - h(top - 1);
      const d2 = h(top) - 2 * h(top - 1) + h(top - 2);
      const k = Math.floor(x / M) - top;
      v[x] = h(top) + k * d1 + ((k * (k + 1)) / 2) * d2;
    }
    out.values = v;
  }
  if (w.policy && w.policy.length % M === 0) {
    const a = new Int32Array(n);
    const m = Math.min(n, w.policy.length);
    a.set(w.policy.subarray(0, m));
    for (let x = m; x < n; x++) a[x] = Math.min(Math.floor(x / M), B);
    for (let x = S * M; x < n; x++) a[x] = Math.max(a[x], Math.min(S, B));
    out.policy = a;
  }
  return out;
}
