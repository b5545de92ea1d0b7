import { describe, expect, it } from 'vitest';
import { validateScenario } from '../../src/model/validate.js';
import { ChainScheduler, orderForWarmStarts } from '../../src/service/batch/chains.js';
import type { BatchTask } from '../../src/service/batch/executor.js';
import { canonicalKey } from '../../src/service/cache/canonical.js';
import { specScenario } from '../helpers/scenarios.js';

/** Drives the scheduler with lanes taking turns in a fixed, uneven pattern (a finished lane's turn goes to the first lane still running). */
function drain<T>(s: ChainScheduler<T>, lanes: number, pattern: number[]): Array<{ lane: number; item: T; previous: T | undefined }> {
  const out: Array<{ lane: number; item: T; previous: T | undefined }> = [];
  const done = new Set<number>();
  for (let k = 0; done.size < lanes; k++) {
    let lane = pattern[k % pattern.length] % lanes;
    if (done.has(lane)) lane = [...Array(lanes).keys()].find((l) => !done.has(l))!;
    const step = s.next(lane);
    if (!step) done.add(lane);
    else out.push({ lane, ...step });
  }
  return out;
}

describe('ChainScheduler', () => {
  for (const [n, lanes, pattern] of [
    [50, 2, [0, 1]],
    [50, 2, [0, 0, 0, 1]],
    [7, 3, [2, 1, 0, 0]],
    [1, 4, [0, 1, 2, 3]],
    [0, 2, [0, 1]],
  ] as Array<[number, number, number[]]>) {
    it(`hands out each of ${n} items exactly once to ${lanes} lanes (pattern ${pattern.join('')})`, () => {
      const items = Array.from({ length: n }, (_, i) => i);
      const steps = drain(new ChainScheduler(items, lanes), lanes, [...pattern]);
      expect(steps.map((s) => s.item).sort((a, b) => a - b)).toEqual(items);
      for (const s of steps) {
        // A predecessor is always the item just before, and was handed out earlier.
        if (s.previous !== undefined) {
          expect(s.previous).toBe(s.item - 1);
          expect(steps.findIndex((x) => x.item === s.previous)).toBeLessThan(steps.findIndex((x) => x.item === s.item));
        }
      }
    });
  }

  it('walks contiguous runs: with two even lanes, only the two chain starts lack a predecessor', () => {
    const steps = drain(new ChainScheduler(Array.from({ length: 40 }, (_, i) => i), 2), 2, [0, 1]);
    expect(steps.filter((s) => s.previous === undefined).map((s) => s.item)).toEqual([0, 20]);
  });
});

describe('orderForWarmStarts', () => {
  it('groups by B, then weights, then sorts by arrival rate', () => {
    const mk = (index: number, lambda: number, w: number, B: number): BatchTask => {
      const scenario = validateScenario({ ...specScenario(lambda, w), maxBatchSize: B });
      return { index, scenario, key: canonicalKey(scenario), input: undefined };
    };
    const tasks = [mk(0, 3000, 1e-3, 32), mk(1, 1000, 1e-4, 32), mk(2, 2000, 1e-3, 32), mk(3, 500, 1e-4, 16), mk(4, 2000, 1e-4, 32)];
    const order = orderForWarmStarts(tasks).map((t) => t.index);
    // B = 16 apart; within B = 32: w = 1e-4 (λ 1000, 2000), then w = 1e-3 (λ 2000, 3000).
    const b32 = order.filter((i) => i !== 3);
    expect(b32).toEqual([1, 4, 2, 0]);
    expect([order[0], order[order.length - 1]]).toContain(3);
  });
});
