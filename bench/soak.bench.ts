/**
 * Soak: a real `batchwise serve` process takes three rounds of 50 concurrent clients (each a
 * Solve, an Evaluate and a 6-scenario SolveBatch, all distinct so the cache does not answer
 * them), and its resident memory is read from /proc after each round. A server that leaks
 * grows round after round; the figure to watch is each round's RSS against the first's
 * (the reliability target: within 20 %).
 */
import type { Scenario } from '../src/index.js';
import { BatchwiseClient } from '../src/service/index.js';
import { rssMiB, startServer } from './server.js';
import { fmt } from './stats.js';
import type { BenchContext, BenchSection } from './types.js';

const scenario = (rate: number, powerWeight: number): Scenario => ({
  arrivalRate: rate,
  maxBatchSize: 32,
  serviceTime: { linear: { perItem: 0.0001438, base: 0.0018874 }, distribution: 'DETERMINISTIC' },
  power: { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } },
  objective: { latencyWeight: 1, powerWeight },
});

async function client(address: string, round: number, i: number): Promise<number> {
  const c = new BatchwiseClient(address, { ownConnection: true }); // 50 clients, 50 connections
  try {
    const rate = 500 + 40 * i + 7 * round;
    const w = 1e-4 * (1 + round);
    await c.solve(scenario(rate, w));
    await c.evaluate(scenario(rate, w), 'control-limit:4');
    let n = 0;
    for await (const r of c.solveBatch({ grid: { base: scenario(rate, w), arrivalRate: [rate + 1, rate + 2, rate + 3], powerWeight: [w, 2 * w] } })) if (r.result) n++;
    return n;
  } finally {
    c.close();
  }
}

export default async function soak(ctx: BenchContext): Promise<BenchSection> {
  const clients = ctx.quick ? 10 : 50;
  const { proc, address } = await startServer(['--cache-size', '64']);
  const rows: Array<Record<string, string | number>> = [];
  try {
    const before = rssMiB(proc.pid!);
    let first = NaN;
    for (let round = 0; round < 3; round++) {
      const t = performance.now();
      const solved = await Promise.all(Array.from({ length: clients }, (_, i) => client(address, round, i)));
      const rss = rssMiB(proc.pid!);
      if (round === 0) first = rss;
      rows.push({
        round: round + 1,
        clients,
        'batch results': solved.reduce((a, b) => a + b, 0),
        'wall (s)': fmt((performance.now() - t) / 1000),
        'server RSS (MiB)': fmt(rss),
        'vs round 1': fmt(rss / first),
      });
      ctx.log(`round ${round + 1}: RSS ${fmt(rss)} MiB`);
    }
    return {
      name: 'Soak: server memory over rounds of clients',
      machineNote: `A \`batchwise serve\` child process (CPU only, cache of 64); its RSS before the first round: ${fmt(before)} MiB.`,
      rows,
      notes: ['Each client: one Solve, one Evaluate and one 6-scenario SolveBatch, all distinct; the target is every round within 20 % of the first.'],
    };
  } finally {
    proc.kill('SIGTERM');
  }
}
