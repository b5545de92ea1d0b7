import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { latencyOfSolved } from '../../src/latency/summary.js';
import { validateScenario } from '../../src/model/validate.js';
import { SolutionCache } from '../../src/service/cache/solutionCache.js';
import { DEFAULT_LIMITS } from '../../src/service/config.js';
import { createSolveHandler } from '../../src/service/handlers/solve.js';
import type { ServiceDeps } from '../../src/service/handlers/deps.js';
import type { SolveUpdate } from '../../src/service/messages.js';
import { JOBS } from '../../src/service/pool/jobs.js';
import type { WorkerPool } from '../../src/service/pool/workerPool.js';
import type { CallContext } from '../../src/service/rpc/context.js';
import { SolveCoordinator } from '../../src/service/solving/coordinator.js';
import { cheapScenario } from '../helpers/latency.js';

/**
 * A pool that runs the solve job in this thread and holds every latency job until `release`:
 * it shows when the handler asks for the percentiles relative to what it has already sent.
 */
function gatedPool() {
  const held: Array<() => void> = [];
  const submitted: string[] = [];
  const pool = {
    submit(kind: string, job: never, opts: { signal: AbortSignal }) {
      submitted.push(kind);
      if (kind === 'solve') return JOBS.solve(job, { signal: opts.signal, progress: () => {} }).then((o) => o.result);
      if (kind === 'latency') return new Promise<void>((r) => held.push(r)).then(() => JOBS.latency(job, { signal: opts.signal, progress: () => {} })).then((o) => o.result);
      return Promise.reject(new Error(`unexpected job ${kind}`));
    },
  } as unknown as WorkerPool;
  return { pool, submitted, release: () => held.splice(0).forEach((r) => r()) };
}

function harness() {
  const gate = gatedPool();
  const cache = new SolutionCache(8);
  const coordinator = new SolveCoordinator(gate.pool, cache, 1e6, { onCache: () => {}, onShared: () => {}, onSolved: () => {} });
  const deps = { limits: DEFAULT_LIMITS, pool: gate.pool, cache, coordinator, progressIntervalMs: 100 } as unknown as ServiceDeps;
  const ctx = (): CallContext => ({
    signal: new AbortController().signal,
    log: pino({ level: 'silent' }),
    requestId: 'r',
    callId: 'c',
    peer: 'test',
    deadline: Infinity,
    metadata: new Map(),
    facts: {},
  });
  return { gate, handler: createSolveHandler(deps), ctx };
}

describe('Solve sends the certified result before it computes the percentiles', () => {
  it('one `solved` update (no percentiles) before any latency job is asked for; the final one adds exactly those percentiles', async () => {
    const { gate, handler, ctx } = harness();
    const s = cheapScenario(250);
    const updates = handler({ scenario: s, progressIntervalMs: 0, skipPercentiles: false }, ctx());
    let solved: SolveUpdate | undefined;
    for (;;) {
      const u = (await updates.next()).value as SolveUpdate;
      expect(u.done).toBe(false);
      if (u.solved) {
        solved = u;
        break;
      }
    }
    // Nothing waits on the percentiles yet: the policy is out at the speed of the solve.
    expect(gate.submitted).toEqual(['solve']);
    expect(solved.solved!.latency).toBeUndefined();
    expect(solved.solved!.latencyUnavailable).toBeUndefined();
    expect(solved.progress).toBeUndefined();
    const pending = updates.next();
    await new Promise((r) => setImmediate(r));
    expect(gate.submitted).toEqual(['solve', 'latency']);
    gate.release();
    const last = (await pending).value as SolveUpdate;
    expect(last.done).toBe(true);
    const { latency, ...rest } = last.result!;
    expect(rest).toEqual(solved.solved);
    // The figures are the percentiles of the very policy sent first, computed independently here.
    const v = validateScenario(s);
    const direct = latencyOfSolved(v.params, { actions: Int32Array.from(solved.solved!.policy.actions), tailBatch: v.params.maxBatchSize }, solved.solved!.solver.maxQueue);
    expect(latency).toEqual('latency' in direct ? direct.latency : undefined);
    expect((await updates.next()).done).toBe(true);
  });

  it('no `solved` update when the percentiles are not wanted, nor when the cache already has them', async () => {
    const { gate, handler, ctx } = harness();
    const s = cheapScenario(260);
    const collect = async (skip: boolean) => {
      const out: SolveUpdate[] = [];
      const it = handler({ scenario: s, progressIntervalMs: 0, skipPercentiles: skip }, ctx());
      for (;;) {
        const n = it.next();
        await new Promise((r) => setImmediate(r));
        gate.release();
        const r = await n;
        if (r.done) return out;
        out.push(r.value);
      }
    };
    const skipped = await collect(true);
    expect(skipped.filter((u) => u.solved)).toHaveLength(0);
    expect(skipped.at(-1)!.result!.latency).toBeUndefined();
    // From the cache (no percentiles in it yet): sent first, then filled in.
    const filled = await collect(false);
    expect(filled.filter((u) => u.solved)).toHaveLength(1);
    expect(filled.at(-1)!.cached).toBe(true);
    expect(filled.at(-1)!.result!.latency).toBeDefined();
    // Now the cache entry has them: straight to the final update.
    const cached = await collect(false);
    expect(cached.filter((u) => u.solved)).toHaveLength(0);
    expect(cached).toHaveLength(1);
    expect(cached[0].result!.latency).toEqual(filled.at(-1)!.result!.latency);
  });
});
