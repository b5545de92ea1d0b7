import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specScenario } from '../helpers/scenarios.js';
import { sample, startHarness, type Harness } from './support/harness.js';

/**
 * Cancels reach the solver inside its long synchronous steps (the shared cancel flag, read by
 * every throwIfAborted), so a cancelled solve frees its worker thread without the thread being
 * replaced. The solve: policy iteration on an explicit S = 60,000, whose every step is one exact
 * evaluation of a 60,001-state chain, seconds of synchronous work; the cancel comes right after
 * the first step's progress, in the middle of the second evaluation. The grace before a stuck
 * worker is terminated is 500 ms here, well below one evaluation: a solve that only looked at
 * its signal between steps (as before) had its thread killed and replaced.
 */
describe('a cancel stops the solver between and within its sweeps; the worker thread is reused', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 1 }, abortGraceMs: 500 });
  });
  afterAll(async () => h?.close());

  it('a cancelled long policy-iteration solve stops by itself, and the same thread serves the next job', async () => {
    const long = { ...specScenario(4000, 1e-4), solver: { method: 'POLICY_ITERATION', maxQueue: 60_000, tolerance: 1e-13 } };
    const controller = new AbortController();
    let progressed!: () => void;
    const firstProgress = new Promise<void>((r) => (progressed = r));
    const call = h
      .client()
      .solve(long, { signal: controller.signal, progressIntervalMs: 10, onProgress: () => progressed() })
      .catch((e: unknown) => e);
    await firstProgress;
    controller.abort();
    const aborted = await h.jobEnd((e) => e.kind === 'solve' && e.outcome === 'aborted');
    await call;
    expect(aborted.killed).toBeFalsy();
    const next = specScenario(1500, 1e-4);
    await h.client().solve(next);
    const served = await h.jobEnd((e) => e.kind === 'solve' && e.outcome === 'ok');
    expect(served.threadId).toBe(aborted.threadId);
    const text = await h.server.metrics.registry.metrics();
    expect(sample(text, 'batchwise_worker_restarts_total')).toBe(0);
    console.info(`cancel mid-evaluation → job stopped after ${aborted.abortLatencyMs!.toFixed(1)} ms on thread ${aborted.threadId}; next job on thread ${served.threadId}`);
  });
});
