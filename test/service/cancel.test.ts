import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteError } from '../../src/service/client.js';
import type { SolveUpdate } from '../../src/service/messages.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';
import { comparable, longScenario, startHarness, type Harness } from './support/harness.js';

/** Opens a Solve stream and resolves its `firstProgress` once the solve is running on a worker. */
function openSolve(h: Harness, scenario: unknown, opts: { deadline?: number } = {}) {
  const controller = new AbortController();
  const updates: SolveUpdate[] = [];
  let onFirst!: () => void;
  const firstProgress = new Promise<void>((r) => (onFirst = r));
  const progressListeners: Array<() => void> = [];
  const ended = (async () => {
    for await (const u of h.client().solveUpdates({ scenario, progressIntervalMs: 10 }, { signal: controller.signal, ...opts })) {
      updates.push(u);
      if (u.progress) {
        onFirst();
        progressListeners.splice(0).forEach((l) => l());
      }
    }
  })().then(
    () => ({ ok: true as const }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const nextProgress = () => new Promise<void>((r) => progressListeners.push(r));
  return { cancel: () => controller.abort(), updates, firstProgress, nextProgress, ended };
}

describe('cancellation, deadlines and the queue bound (one worker)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 1, maxQueuedSolves: 1 } });
  });
  afterAll(async () => h?.close());

  it('a client cancel stops the solve and frees the worker for the next request', async () => {
    const call = openSolve(h, longScenario());
    await call.firstProgress;
    call.cancel();
    const end = await h.jobEnd((e) => e.kind === 'solve' && e.outcome === 'aborted');
    expect(end.abortLatencyMs).toBeGreaterThanOrEqual(0);
    console.info(`cancel → job stopped after ${end.abortLatencyMs!.toFixed(1)} ms (${end.killed ? "worker replaced" : "stopped by itself"})`);
    expect((await call.ended).ok).toBe(false);
    // The single worker is free again: a new solve gets it and finishes.
    const s = specScenario(1500, 1e-4);
    const r = await h.client().solve(s);
    expect(comparable(r.result)).toEqual(comparable(await solveScenario(s)));
    expect(h.server.pool.stats()).toEqual({ size: 1, busy: 0, queued: 0 });
    const line = h.lines.find((l) => l.rpc === 'Solve' && l.code === 'CANCELLED');
    expect(line).toBeDefined();
  });

  it('a deadline stops the solve with DEADLINE_EXCEEDED and frees the worker', async () => {
    // A worker replaced after the last test may still be loading; the deadline must find the solve running.
    await h.server.pool.ready();
    const before = h.jobEnds.filter((e) => e.outcome === 'aborted').length;
    const call = openSolve(h, longScenario(), { deadline: Date.now() + 1500 });
    const out = await call.ended;
    expect(out.ok).toBe(false);
    expect((out as { error: RemoteError }).error).toBeInstanceOf(RemoteError);
    expect((out as { error: RemoteError }).error.codeName).toBe('DEADLINE_EXCEEDED');
    await h.jobEnd((e) => e.outcome === 'aborted' && h.jobEnds.filter((x) => x.outcome === 'aborted').length > before);
    expect(h.lines.some((l) => l.rpc === 'Solve' && l.code === 'DEADLINE_EXCEEDED')).toBe(true);
    const r = await h.client().evaluate(specScenario(1500, 1e-4), 'greedy');
    expect(r.averageCost).toBeGreaterThan(0);
  });

  it('past the queue bound a request gets RESOURCE_EXHAUSTED; queued ones are dropped on cancel', async () => {
    await h.server.pool.ready();
    const running = openSolve(h, longScenario());
    await running.firstProgress;
    const queued = openSolve(h, { ...longScenario(), arrivalRate: 4890 });
    // Wait until the second request sits in the queue.
    while (h.server.pool.stats().queued < 1) await new Promise((r) => setTimeout(r, 10));
    const refused = await h.client().solve({ ...longScenario(), arrivalRate: 4880 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RemoteError);
    expect((refused as RemoteError).codeName).toBe('RESOURCE_EXHAUSTED');
    expect((refused as RemoteError).details).toMatch(/maxQueuedSolves = 1/);
    queued.cancel();
    running.cancel();
    await Promise.all([queued.ended, running.ended]);
    while (h.server.pool.stats().busy > 0) await new Promise((r) => setTimeout(r, 10));
    expect(h.server.pool.stats()).toEqual({ size: 1, busy: 0, queued: 0 });
  });

  it('identical requests share one solve, which stops only when its last caller leaves', async () => {
    await h.server.pool.ready();
    const aborted = () => h.jobEnds.filter((e) => e.outcome === 'aborted').length;
    const before = aborted();
    const a = openSolve(h, longScenario());
    await a.firstProgress;
    const b = openSolve(h, longScenario());
    await b.firstProgress;
    expect(h.server.pool.stats().busy).toBe(1);
    a.cancel();
    await a.ended;
    // The shared solve goes on: b keeps getting fresh progress from it after a has left.
    const seen = b.updates.length;
    await b.nextProgress();
    await b.nextProgress();
    expect(b.updates.length).toBeGreaterThanOrEqual(seen + 2);
    expect(aborted()).toBe(before);
    b.cancel();
    await b.ended;
    await h.jobEnd(() => aborted() > before);
    expect(aborted()).toBe(before + 1);
  });
});
