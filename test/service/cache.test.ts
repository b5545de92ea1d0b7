import { describe, expect, it } from 'vitest';
import { arrivalPmf } from '../../src/model/arrivals.js';
import type { ModelParams } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { canonicalKey, shapeKey } from '../../src/service/cache/canonical.js';
import { LruMap } from '../../src/service/cache/lru.js';
import { SolutionCache } from '../../src/service/cache/solutionCache.js';
import type { SolveResult } from '../../src/solve/result.js';
import { SPEC_FIT, specScenario } from '../helpers/scenarios.js';

describe('LruMap', () => {
  it('evicts the least recently used entry, and a read refreshes an entry', () => {
    const m = new LruMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    expect(m.get('a')).toBe(1); // a is now newer than b
    const evicted = m.set('c', 3);
    expect(evicted).toEqual([['b', 2]]);
    expect(m.get('b')).toBeUndefined();
    expect([m.get('a'), m.get('c'), m.size]).toEqual([1, 3, 2]);
  });

  it('with capacity 0 keeps nothing', () => {
    const m = new LruMap<string, number>(0);
    m.set('a', 1);
    expect(m.get('a')).toBeUndefined();
  });
});

describe('canonical form', () => {
  it('ignores spelling: key order, defaults left out, a linear fit versus the table it gives', () => {
    const a = specScenario(2000, 1e-4);
    const B = a.maxBatchSize;
    const table = Array.from({ length: B }, (_, i) => SPEC_FIT.perItem * (i + 1) + SPEC_FIT.base);
    const b = {
      solver: { tolerance: 0, backend: 'AUTO' },
      objective: { powerWeight: 1e-4, latencyWeight: 1 },
      power: a.power,
      serviceTime: { table: { values: table } },
      maxBatchSize: B,
      arrivalRate: 2000,
    };
    expect(canonicalKey(validateScenario(b))).toBe(canonicalKey(validateScenario(a)));
  });

  it('tells apart scenarios that differ in any number, however little', () => {
    const base = canonicalKey(validateScenario(specScenario(2000, 1e-4)));
    expect(canonicalKey(validateScenario(specScenario(2000 * (1 + 1e-15), 1e-4)))).not.toBe(base);
    expect(canonicalKey(validateScenario(specScenario(2000, 1.0000001e-4)))).not.toBe(base);
    expect(canonicalKey(validateScenario({ ...specScenario(2000, 1e-4), solver: { tolerance: 1e-10 } }))).not.toBe(base);
  });

  it('reads the service law as the solve does: its cv, which m2 can round away; EXPONENTIAL and GAMMA with cv 1 are one law', () => {
    const law = (distribution: 'GAMMA' | 'EXPONENTIAL', cv?: number) =>
      validateScenario(specScenario(2000, 1e-4, { serviceTime: { linear: { ...SPEC_FIT }, distribution, ...(cv === undefined ? {} : { cv }) } }));
    const pmf = (p: ModelParams) => Array.from(arrivalPmf(p.distribution, p.arrivalRate, p.meanService[4], p.secondMoment[4], p.cv).probs);
    const half = law('GAMMA', 0.5);
    const nextHalf = law('GAMMA', 0.5000000000000001);
    // The tables cannot tell these two apart, the count law the solve builds can.
    expect(Array.from(nextHalf.params.secondMoment)).toEqual(Array.from(half.params.secondMoment));
    expect(pmf(nextHalf.params)).not.toEqual(pmf(half.params));
    expect(canonicalKey(nextHalf)).not.toBe(canonicalKey(half));
    const exponential = law('EXPONENTIAL');
    const gammaOne = law('GAMMA', 1);
    expect(pmf(gammaOne.params)).toEqual(pmf(exponential.params));
    expect(canonicalKey(gammaOne)).toBe(canonicalKey(exponential));
  });

  it('shape: the same B and solver choice share a shape; another B does not', () => {
    const s = (lambda: number, B: number) => shapeKey(validateScenario({ ...specScenario(lambda, 1e-4), maxBatchSize: B }));
    expect(s(1000, 32)).toBe(s(3000, 32));
    expect(s(1000, 32)).not.toBe(s(1000, 16));
  });
});

describe('SolutionCache.nearest', () => {
  const fake = (tag: number) =>
    ({ values: Float64Array.of(tag), policy: Int32Array.of(tag) }) as { values: Float64Array; policy: Int32Array };
  const result = {} as SolveResult;

  it('returns the closest cached solution of the same shape, never one of another shape', () => {
    const cache = new SolutionCache(10);
    cache.store(validateScenario(specScenario(1000, 1e-4)), result, fake(1000));
    cache.store(validateScenario(specScenario(3000, 1e-4)), result, fake(3000));
    cache.store(validateScenario({ ...specScenario(2500, 1e-4), maxBatchSize: 16 }), result, fake(16));
    expect(cache.nearest(validateScenario(specScenario(2600, 1e-4)))?.values?.[0]).toBe(3000);
    expect(cache.nearest(validateScenario(specScenario(1200, 1e-4)))?.values?.[0]).toBe(1000);
    expect(cache.nearest(validateScenario({ ...specScenario(1000, 1e-4), maxBatchSize: 8 }))).toBeUndefined();
  });
});

describe('LruMap weight bound', () => {
  it('evicts by total weight as well as by count, and refuses an entry heavier than the bound', () => {
    const m = new LruMap<string, number>(100, 10, (v) => v);
    m.set('a', 4);
    m.set('b', 4);
    expect(m.totalWeight).toBe(8);
    expect(m.set('c', 4)).toEqual([['a', 4]]);
    expect([m.size, m.totalWeight]).toEqual([2, 8]);
    expect(m.set('huge', 11)).toEqual([['huge', 11]]);
    expect(m.get('huge')).toBeUndefined();
    m.set('b', 1); // replacing an entry replaces its weight
    expect(m.totalWeight).toBe(5);
  });
});
