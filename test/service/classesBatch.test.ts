import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteError } from '../../src/service/client.js';
import type { ScenarioResult } from '../../src/service/messages.js';
import { scenarioOf } from '../classes/support.js';
import { specScenario } from '../helpers/scenarios.js';
import { autoClasses, classA, classB, comparableClasses, twoClasses } from './support/classes.js';
import { comparable, startHarness, type Harness } from './support/harness.js';

/**
 * SolveBatch with multi-class scenarios (docs/model.md §10) beside single-class ones, against a
 * real server: each classes item's `classesResult` equals the Solve RPC's result for the same
 * scenario (wall time aside), the single-class items are answered as before, refusals are
 * per-item INVALID_ARGUMENT naming the field, and a cancel or deadline stops a classes solve
 * running in a batch and frees its worker.
 */
async function collect(it: AsyncIterable<ScenarioResult>): Promise<ScenarioResult[]> {
  const out: ScenarioResult[] = [];
  for await (const r of it) out.push(r);
  return out;
}

function byIndex(results: readonly ScenarioResult[]): Map<number, ScenarioResult> {
  const m = new Map(results.map((r) => [r.index, r]));
  expect(m.size).toBe(results.length); // one result per index
  return m;
}

const batchLine = (h: Harness): Record<string, unknown> | undefined => h.lines.find((l) => l.rpc === 'SolveBatch' && l.msg === 'rpc finished');

async function lineOf(h: Harness): Promise<Record<string, unknown>> {
  // The log line is written once the call has ended, right after the client sees its status.
  while (!batchLine(h)) await new Promise((r) => setTimeout(r, 20));
  return batchLine(h)!;
}

describe('SolveBatch with classes (two workers)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 2 } });
  });
  afterAll(async () => h?.close());

  it('a mixed list: classes results equal Solve bit for bit, single-class ones too, bad classes items name their field, every index once', async () => {
    const single = specScenario(1000, 1e-4);
    const oneClass = scenarioOf([{ ...classA, rate: 400 }], 40, 1e-3, 1e-9);
    const badWeight = { ...twoClasses, classes: [twoClasses.classes[0], { ...twoClasses.classes[1], latencyWeight: -1 }] };
    const beside = { ...twoClasses, arrivalRate: 100 };
    const list = [twoClasses, single, badWeight, oneClass, beside];
    const results = await collect(h.client().solveBatch({ list: { scenarios: list } }));
    expect(results).toHaveLength(list.length);
    const at = byIndex(results);
    expect([...at.keys()].sort()).toEqual([0, 1, 2, 3, 4]);

    const [two, one, alone] = await Promise.all([h.client().solveClasses(twoClasses), h.client().solveClasses(oneClass), h.client().solve(single)]);
    const r0 = at.get(0)!;
    expect(r0.result).toBeUndefined();
    expect(r0.error).toBeUndefined();
    expect(comparableClasses(r0.classesResult!)).toEqual(comparableClasses(two.result));
    expect(r0.classesResult!.policy.serveClass).toHaveLength(19 * 15);
    expect(r0).toMatchObject({ cached: false, warmStarted: false, parameters: { arrivalRate: 0, maxBatchSize: 0, latencyWeight: 0, powerWeight: 1e-3 } });
    // One class: the single-class solve it restates comes along, as from Solve.
    const r3 = at.get(3)!;
    expect(r3.classesResult!.single).toBeDefined();
    expect(comparableClasses(r3.classesResult!)).toEqual(comparableClasses(one.result));

    const r1 = at.get(1)!;
    expect(r1.classesResult).toBeUndefined();
    expect(comparable(r1.result!)).toEqual(comparable(alone.result));

    expect(at.get(2)!.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'classes[1].latencyWeight' });
    expect(at.get(4)!.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'arrivalRate' });
    for (const i of [2, 4]) expect(at.get(i)!.classesResult).toBeUndefined();
    expect(await lineOf(h)).toMatchObject({ code: 'OK', scenarios: 5, invalid: 2, failed: 0, solved: 3, classesScenarios: 2, unanswered: 0 });
  }, 120_000);

  it('a grid over a classes base: each powerWeight point equals Solve of that scenario; a single-class axis is refused per point, by name', async () => {
    const weights = [1e-4, 2e-3];
    const results = await collect(h.client().solveBatch({ grid: { base: twoClasses, powerWeight: weights } }));
    const at = byIndex(results);
    const solved = await Promise.all(weights.map((powerWeight) => h.client().solveClasses({ ...twoClasses, objective: { powerWeight } })));
    weights.forEach((w, i) => {
      expect(at.get(i)!.parameters.powerWeight).toBe(w);
      expect(comparableClasses(at.get(i)!.classesResult!)).toEqual(comparableClasses(solved[i].result));
    });
    // The two weights give different optima (the check above is not one result twice).
    expect(solved[0].result.averageCost).not.toBe(solved[1].result.averageCost);

    const refused = await collect(h.client().solveBatch({ grid: { base: twoClasses, arrivalRate: [100, 200] } }));
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(r.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'arrivalRate' });
  }, 120_000);
});

/**
 * A classes solve that runs for minutes: value iteration on a fixed 121 × 121 box at the tightest
 * tolerance (about 0.1 s a sweep here, the bounds still far apart after 200 sweeps).
 */
const longClasses = scenarioOf([{ ...classA, S: 120 }, { ...classB, S: 120 }], 40, 1e-3, 1e-13);
/** Quick single-class items that finish while it runs (the other worker). */
const cheap = [specScenario(800, 1e-4), specScenario(1200, 1e-4)];

describe('SolveBatch with classes: cancel and deadline stop the classes solve (two workers)', () => {
  it('client cancel while a classes item runs: CANCELLED, its job aborted, the workers free', async () => {
    const h = await startHarness({ limits: { maxConcurrentSolves: 2 } });
    try {
      const controller = new AbortController();
      const received: ScenarioResult[] = [];
      const ended = (async () => {
        try {
          for await (const r of h.client().solveBatch({ list: { scenarios: [longClasses, ...cheap] } }, { signal: controller.signal })) {
            received.push(r);
            if (received.length === cheap.length) controller.abort();
          }
          return undefined;
        } catch (e) {
          return e;
        }
      })();
      const error = await ended;
      expect(received.map((r) => r.index).sort()).toEqual([1, 2]);
      expect(received.every((r) => r.result !== undefined)).toBe(true);
      // The client's own cancel: grpc-js ends the call locally with CANCELLED.
      expect(error).toBeInstanceOf(RemoteError);
      expect((error as RemoteError).codeName).toBe('CANCELLED');
      const job = await h.jobEnd((j) => j.kind === 'classesSolve');
      expect(job.outcome).toBe('aborted');
      expect(await lineOf(h)).toMatchObject({ code: 'CANCELLED', scenarios: 3, sent: 2, unanswered: 1 });
      expect(h.server.pool.stats().busy).toBe(0);
    } finally {
      await h.close();
    }
  }, 120_000);

  it('deadline: DEADLINE_EXCEEDED, the classes job aborted', async () => {
    const h = await startHarness({ limits: { maxConcurrentSolves: 2 } });
    try {
      let error: unknown;
      const received: ScenarioResult[] = [];
      try {
        for await (const r of h.client().solveBatch({ list: { scenarios: [longClasses, ...cheap] } }, { deadline: Date.now() + 4000 })) received.push(r);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RemoteError);
      expect((error as RemoteError).codeName).toBe('DEADLINE_EXCEEDED');
      expect(received.some((r) => r.index === 0)).toBe(false);
      const job = await h.jobEnd((j) => j.kind === 'classesSolve');
      expect(job.outcome).toBe('aborted');
      const line = await lineOf(h);
      expect(line).toMatchObject({ code: 'DEADLINE_EXCEEDED', scenarios: 3 });
      expect(line.unanswered).toBeGreaterThanOrEqual(1);
      expect(h.server.pool.stats().busy).toBe(0);
    } finally {
      await h.close();
    }
  }, 120_000);
});

describe('SolveBatch with classes on a server with a small maxStates', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 1, maxStates: 200 } });
  });
  afterAll(async () => h?.close());

  it('an automatic box past the joint bound fails that item with INVALID_ARGUMENT on classes; an explicit one is refused at validation; the rest is solved', async () => {
    const explicit = scenarioOf([{ ...classA, S: 20 }, { ...classB, S: 20 }], 40, 1e-3, 1e-9);
    const small = specScenario(300, 1e-4);
    const results = await collect(h.client().solveBatch({ list: { scenarios: [autoClasses, small, explicit] } }));
    const at = byIndex(results);
    expect(at.get(0)!.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'classes' });
    expect(at.get(0)!.error!.message).toMatch(/joint states .* above this server's maxStates = 200/);
    expect(at.get(2)!.error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'classes' });
    expect(at.get(2)!.error!.message).toMatch(/441 joint states, above this server's maxStates limit 200/);
    expect(at.get(1)!.result!.solver.stopReason).toBe('converged');
    expect(await lineOf(h)).toMatchObject({ code: 'OK', scenarios: 3, invalid: 1, failed: 1, solved: 1 });
    expect(h.server.pool.stats().busy).toBe(0);
  }, 60_000);
});
