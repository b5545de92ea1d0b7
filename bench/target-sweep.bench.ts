/**
 * The speed issue's sweep target: 1,000 scenarios (B = 32, the spec's service fit, λ from 10 %
 * to 95 % of capacity in 100 steps × 10 power weights from 0 to 1e-3) through SolveBatch on a
 * real server with two workers (both cores), neighbour warm starts on, fresh server per run.
 */
import { pino } from 'pino';
import { type Scenario, type ScenarioResult } from '../src/index.js';
import { BatchwiseClient, BatchwiseServer } from '../src/service/index.js';
import { fmt, median } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

const B = 32;
const PER_ITEM = 0.0001438;
const BASE_TIME = 0.0018874;
const CAPACITY = B / (BASE_TIME + PER_ITEM * B);

const BASE: Scenario = {
  arrivalRate: 1000,
  maxBatchSize: B,
  serviceTime: { linear: { perItem: PER_ITEM, base: BASE_TIME }, distribution: 'DETERMINISTIC' },
  power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
  objective: { latencyWeight: 1, powerWeight: 0 },
};

async function once(): Promise<{ ms: number; results: ScenarioResult[] }> {
  const server = await BatchwiseServer.start({ port: 0, logger: pino({ level: 'silent' }), processMetrics: false, limits: { maxConcurrentSolves: 2 } });
  const client = new BatchwiseClient(server.address);
  const rates = Array.from({ length: 100 }, (_, i) => CAPACITY * (0.1 + (0.85 * i) / 99));
  const powerWeight = Array.from({ length: 10 }, (_, i) => (1e-3 * i) / 9);
  const t = performance.now();
  const results: ScenarioResult[] = [];
  for await (const r of client.solveBatch({ grid: { base: BASE, arrivalRate: rates, powerWeight } })) results.push(r);
  const ms = performance.now() - t;
  client.close();
  await server.shutdown();
  return { ms, results };
}

export default async function run(ctx: BenchContext): Promise<BenchSection> {
  const reps = ctx.quick ? 1 : 3;
  const times: number[] = [];
  let last: ScenarioResult[] = [];
  for (let i = 0; i < reps; i++) {
    ctx.log(`target sweep run ${i + 1}/${reps}`);
    const { ms, results } = await once();
    times.push(ms);
    last = results;
  }
  const solved = last.filter((r) => r.result !== undefined).length;
  const wall = median(times);
  return {
    name: 'Sweep target: 1,000 scenarios through SolveBatch (B = 32, λ 10–95 % of capacity × 10 power weights, 2 workers)',
    rows: [
      {
        scenarios: last.length,
        solved,
        runs: reps,
        'median wall s': fmt(wall / 1000),
        'scenarios/s': fmt((1000 * last.length) / wall),
        target: '≤ 10 s',
      },
    ],
    notes: ['Each run starts a fresh server (no cached answer helps); wall time includes worker start-up.'],
  };
}
