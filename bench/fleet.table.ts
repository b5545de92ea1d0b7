/**
 * Generates the results table of docs/fleet.md: the two-class mix (test/fleet/helpers.ts)
 * over 2 and 4 accelerators from light to heavy load, under round-robin, JSQ, the learned
 * routers (REINFORCE, PPO; default training settings) and segregation with optimal batching.
 * Run: npx tsx bench/fleet.table.ts  (a few minutes on 2 cores). Prints Markdown.
 */
import { validateFleet } from '../src/fleet/scenario.js';
import { planSegregation, segregationSetup } from '../src/fleet/segregation.js';
import { simulateFleet } from '../src/fleet/simulate.js';
import { simpleRouter } from '../src/fleet/routers.js';
import type { FleetSimulation } from '../src/fleet/result.js';
import { LinearRouter } from '../src/fleet/learn/linearRouter.js';
import { trainRouter } from '../src/fleet/learn/trainRouter.js';
import { twoClassFleet } from '../test/fleet/helpers.js';

const REQUESTS = 400_000;
const SEED = 11;
const ms = (s: number): string => (s * 1e3).toFixed(s < 0.01 ? 2 : 1);
const rows: string[] = [
  '| GPUs | load ρ | router | vision mean (ms) | vision p99 | language mean | language p99 | all mean | fleet power (W) | training cost |',
  '|---|---|---|---|---|---|---|---|---|---|',
];
for (const n of [2, 4]) {
  for (const scale of [0.5, 1, 2]) {
    const f = validateFleet(twoClassFleet(n, (scale * n) / 2));
    const rho = f.classes.reduce((s, cl, c) => s + cl.arrivalRate * f.kinds[0].pairs[c].meanService[16] / 16, 0) / n;
    const line = (name: string, r: FleetSimulation, cost: string): void => {
      const [v, l] = r.classes;
      rows.push(`| ${n} | ${rho.toFixed(2)} | ${name} | ${ms(v.meanResponseTime)} ± ${ms(v.meanResponseCi ?? 0)} | ${ms(v.p99)} | ${ms(l.meanResponseTime)} ± ${ms(l.meanResponseCi ?? 0)} | ${ms(l.p99)} | ${ms(r.meanResponseTime)} | ${r.meanPower.toFixed(0)} | ${cost} |`);
      process.stderr.write(`${rows[rows.length - 1]}\n`);
    };
    for (const name of ['round-robin', 'jsq'] as const) line(name, simulateFleet(f, simpleRouter(name, n, 2, SEED), { requests: REQUESTS, seed: SEED }), '–');
    for (const algo of ['reinforce', 'ppo'] as const) {
      const t = trainRouter(f, { algo, seed: 1 });
      line(`learned (${algo})`, simulateFleet(f, LinearRouter.fromWeights(f, t.weights, SEED), { requests: REQUESTS, seed: SEED }), `${(t.simulatedRequests / 1e3).toFixed(0)}k req, ${t.seconds.toFixed(1)} s`);
    }
    const t0 = performance.now();
    const plan = (await planSegregation(f))!;
    const secs = (performance.now() - t0) / 1e3;
    const { router, tables } = segregationSetup(f, plan, SEED);
    line(`segregation ${JSON.stringify(plan.counts[0])}, optimal batching`, simulateFleet(f, router, { requests: REQUESTS, seed: SEED, tables }), `${plan.solves} exact solves, ${secs.toFixed(2)} s`);
  }
}
process.stdout.write(`${rows.join('\n')}\n`);
