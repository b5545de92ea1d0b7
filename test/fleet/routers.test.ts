import { describe, expect, it } from 'vitest';
import { LeastExpectedWork, parseRouterName, PowerOfTwo, RandomRouter, RoundRobin, Segregation, ShortestQueue, type FleetView } from '../../src/fleet/routers.js';
import { ScenarioError } from '../../src/model/errors.js';

/** A frozen fleet state: waiting[a][c], in service, remaining, per-item work[a][c]. */
function view(waiting: number[][], inService: number[], remaining: number[], perItem: number[][]): FleetView {
  return {
    size: waiting.length,
    waiting: (a) => waiting[a].reduce((s, x) => s + x, 0),
    waitingOf: (a, c) => waiting[a][c],
    inService: (a) => inService[a],
    remaining: (a) => remaining[a],
    serving: (a) => inService[a] > 0,
    perItem: (a, c) => perItem[a][c],
  };
}

describe('routers', () => {
  const v = view([[3, 0], [0, 1], [1, 0]], [4, 0, 2], [0.01, 0, 0.002], [[0.001, 0.01], [0.001, 0.01], [0.002, 0.02]]);

  it('round-robin cycles, random is uniform and seeded', () => {
    const rr = new RoundRobin(3);
    expect([0, 1, 2, 3].map(() => rr.route())).toEqual([0, 1, 2, 0]);
    const r = new RandomRouter(3, 5);
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[r.route()]++;
    for (const n of counts) expect(Math.abs(n - 10_000)).toBeLessThan(400);
    r.reset();
    const again = new RandomRouter(3, 5);
    expect([1, 2, 3].map(() => r.route())).toEqual([1, 2, 3].map(() => again.route()));
  });

  it('JSQ counts waiting plus in service; ties go to the lowest index', () => {
    expect(new ShortestQueue().route(0, v)).toBe(1); // loads 7, 1, 3
    expect(new ShortestQueue().route(0, view([[1], [1]], [0, 0], [0, 0], [[1], [1]]))).toBe(0);
  });

  it('power of two never picks the longer of its two samples', () => {
    const p = new PowerOfTwo(1);
    for (let i = 0; i < 200; i++) expect(p.route(0, v)).not.toBe(0); // accelerator 0 is the longest
  });

  it('least expected work weighs remaining time, queued work and the newcomer on that kind', () => {
    // class 0: 0.01+0.003+0.001 | 0+0.01+0.001 | 0.002+0.002+0.002 → accelerator 2
    expect(new LeastExpectedWork(2).route(0, v)).toBe(2);
    // class 1 costs 0.02 on the slow kind: 0.023 | 0.02 | 0.024 → accelerator 1
    expect(new LeastExpectedWork(2).route(1, v)).toBe(1);
  });

  it('segregation keeps each class on its accelerators', () => {
    const s = new Segregation([[0], [1, 2]], 3);
    for (let i = 0; i < 100; i++) {
      expect(s.route(0)).toBe(0);
      expect([1, 2]).toContain(s.route(1));
    }
    expect(() => new Segregation([[0], []], 1)).toThrow(ScenarioError);
  });

  it('names and aliases', () => {
    expect(parseRouterName('RR')).toBe('round-robin');
    expect(parseRouterName('join-shortest-queue')).toBe('jsq');
    expect(() => parseRouterName('smart')).toThrow(/unknown router "smart"/);
  });
});
