import type { BatchwiseClient } from '../../src/service/client.js';
import type { ScenarioResult, SolveBatchRequest } from '../../src/service/messages.js';
import { specScenario } from '../helpers/scenarios.js';

export { cheapBatch, cheapScenarios, UNSTABLE_LOAD } from '../../bench/scaleout.grid.js';

/**
 * The grid the failure tests solve: 20 arrival rates × B ∈ {8, 16} × 2 latency weights ×
 * 5 power weights = 400 small scenarios (B ≤ 16 keeps each solve to milliseconds, so the test
 * exercises the queue, not the solver).
 */
export function testGrid(rates = 20): SolveBatchRequest {
  return {
    grid: {
      base: specScenario(1000, 1e-4, { maxBatchSize: 8 }),
      arrivalRate: Array.from({ length: rates }, (_, i) => 100 * (i + 1)),
      maxBatchSize: [8, 16],
      latencyWeight: [1, 2],
      powerWeight: [0, 1e-4, 3e-4, 1e-3, 3e-3],
    },
    skipPercentiles: true,
  } as unknown as SolveBatchRequest;
}

export async function collect(client: BatchwiseClient, request: SolveBatchRequest, deadlineMs = 90_000): Promise<ScenarioResult[]> {
  const out: ScenarioResult[] = [];
  for await (const r of client.solveBatch(request, { deadline: Date.now() + deadlineMs })) out.push(r);
  return out;
}

/** What must agree between a distributed and a local solve of one scenario (warm starts change only the path). */
export function answer(r: ScenarioResult): unknown {
  if (r.error) return { error: r.error };
  const x = r.result!;
  return { averageCost: x.averageCost, actions: [...x.policy.actions], controlLimit: x.policy.controlLimit, maxQueue: x.solver.maxQueue };
}
