/**
 * What neighbour warm starts save on a SolveBatch sweep: the same grid through a real
 * server (two workers, fresh cache each time), cold (`disableWarmStart`) and warm, with
 * policy iteration (the default) and with value iteration. Counts solver iterations over
 * every S tried; the answers must agree to 1e-9.
 */
import { pino } from 'pino';
import { type Scenario, type ScenarioResult, type SolveBatchRequest } from '../src/index.js';
import { BatchwiseClient, BatchwiseServer } from '../src/service/index.js';
import { fmt } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

const BASE: Scenario = {
  arrivalRate: 1000,
  maxBatchSize: 32,
  serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 }, distribution: 'DETERMINISTIC' },
  power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
  objective: { latencyWeight: 1, powerWeight: 1e-4 },
};

async function sweep(request: SolveBatchRequest): Promise<{ results: ScenarioResult[]; ms: number }> {
  const server = await BatchwiseServer.start({ port: 0, logger: pino({ level: 'silent' }), processMetrics: false, limits: { maxConcurrentSolves: 2 } });
  const client = new BatchwiseClient(server.address);
  const t = performance.now();
  const results: ScenarioResult[] = [];
  for await (const r of client.solveBatch(request)) results.push(r);
  const ms = performance.now() - t;
  client.close();
  await server.shutdown();
  return { results, ms };
}

const iterations = (rs: ScenarioResult[]): number => rs.reduce((n, r) => n + (r.result?.solver.totalIterations ?? 0), 0);

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const step = ctx.quick ? 500 : 250;
  const rates = Array.from({ length: Math.floor(4750 / step) }, (_, i) => step * (i + 1));
  const cases: Array<{ method: 'POLICY_ITERATION' | 'VALUE_ITERATION'; powerWeight: number[]; rates: number[] }> = [
    { method: 'POLICY_ITERATION', powerWeight: [0, 1e-4, 1e-3], rates },
    // Value iteration needs thousands of sweeps near capacity: stop the grid at 4000/s.
    { method: 'VALUE_ITERATION', powerWeight: [1e-4], rates: rates.filter((r) => r <= 4000) },
  ];
  const rows: BenchSection['rows'] = [];
  for (const c of cases) {
    const grid = { base: { ...BASE, solver: { method: c.method } }, arrivalRate: c.rates, powerWeight: c.powerWeight };
    ctx.log(`${c.method}: ${c.rates.length * c.powerWeight.length} scenarios, cold`);
    const cold = await sweep({ grid, disableWarmStart: true });
    ctx.log(`${c.method}: warm`);
    const warm = await sweep({ grid });
    let worst = 0;
    for (const w of warm.results) {
      const k = cold.results.find((r) => r.index === w.index)!;
      worst = Math.max(worst, Math.abs(w.result!.averageCost - k.result!.averageCost) / k.result!.averageCost);
    }
    const ci = iterations(cold.results);
    const wi = iterations(warm.results);
    rows.push({
      method: c.method,
      scenarios: cold.results.length,
      'cold iterations': ci,
      'warm iterations': wi,
      saved: `${fmt((100 * (ci - wi)) / ci)} %`,
      'warm-started': warm.results.filter((r) => r.warmStarted).length,
      'cold wall ms': fmt(cold.ms),
      'warm wall ms': fmt(warm.ms),
      'max |Δg|/g': fmt(worst, 2),
    });
  }
  return {
    name: 'Service: neighbour warm starts on a SolveBatch sweep (λ grid, B = 32, 2 workers)',
    rows,
    notes: [
      'Iterations are solver iterations summed over every scenario and every S tried (policy-iteration steps, or value-iteration sweeps).',
      'Each sweep runs on a fresh server, so no cached solution helps either side; wall times include worker start-up.',
    ],
  };
}
