import { describe, expect, it } from 'vitest';
import { RemoteError } from '../../src/service/client.js';
import { solveResultFromProto } from '../../src/service/convert/result.js';
import type { SolveUpdate } from '../../src/service/messages.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';
import { comparable, longScenario, startHarness, type Harness } from './support/harness.js';

/** Starts a Solve stream; `running` resolves at its first progress update (the solve is on a worker). */
function startSolve(h: Harness, scenario: unknown) {
  let onRunning!: () => void;
  const running = new Promise<void>((r) => (onRunning = r));
  const updates: SolveUpdate[] = [];
  const ended = (async () => {
    for await (const u of h.client().solveUpdates({ scenario, progressIntervalMs: 10 })) {
      updates.push(u);
      if (u.progress) onRunning();
    }
  })().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { running, updates, ended };
}

describe('graceful shutdown (terminator pattern)', () => {
  it('lets a running solve finish within the grace time, then stops; later calls are refused', async () => {
    const h = await startHarness({ limits: { maxConcurrentSolves: 1 } });
    // Capped value iteration: progress at sweep 100, then it ends at sweep 200 with its result.
    const scenario = { ...longScenario(), solver: { ...longScenario().solver, maxIterations: 200 } };
    const call = startSolve(h, scenario);
    await call.running;
    await h.server.shutdown({ graceMs: 120_000 });
    expect(await call.ended).toBeUndefined();
    const last = call.updates[call.updates.length - 1];
    expect(last.done).toBe(true);
    const result = solveResultFromProto(last.result);
    expect(result.solver).toMatchObject({ iterations: 200, stopReason: 'max-iterations' });
    expect(comparable(result)).toEqual(comparable(await solveScenario(scenario)));
    const stopped = h.lines.find((l) => l.msg === 'batchwise stopped');
    expect(stopped).toMatchObject({ runningAtStart: 1, aborted: false });
    const late = await h.client().solve(specScenario(100, 1e-4), { deadline: Date.now() + 5000 }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(RemoteError);
    expect(['UNAVAILABLE', 'DEADLINE_EXCEEDED']).toContain((late as RemoteError).codeName);
    await h.close();
  });

  it('aborts work still running after the grace time: the client gets UNAVAILABLE, the workers stop', async () => {
    const h = await startHarness({ limits: { maxConcurrentSolves: 1 } });
    const call = startSolve(h, longScenario());
    await call.running;
    await h.server.shutdown({ graceMs: 200 });
    const e = await call.ended;
    expect(e).toBeInstanceOf(RemoteError);
    expect((e as RemoteError).codeName).toBe('UNAVAILABLE');
    expect((e as RemoteError).details).toBe('Server shutting down');
    expect(call.updates.some((u) => u.done)).toBe(false);
    expect(h.lines.find((l) => l.rpc === 'Solve')).toMatchObject({ code: 'UNAVAILABLE' });
    expect(h.lines.find((l) => l.msg === 'batchwise stopped')).toMatchObject({ runningAtStart: 1, aborted: true });
    expect(h.server.pool.stats()).toMatchObject({ busy: 0, queued: 0 });
    await h.close();
  });
});
