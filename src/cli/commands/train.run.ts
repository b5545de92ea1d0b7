import { writeFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { pairScenario, validateFleet } from '../../fleet/scenario.js';
import { simulateFleet } from '../../fleet/simulate.js';
import { renderCurveSvg } from '../../fleet/learn/curve.js';
import { LinearRouter } from '../../fleet/learn/linearRouter.js';
import { trainBatching } from '../../fleet/learn/trainBatching.js';
import { trainRouter, type Algo } from '../../fleet/learn/trainRouter.js';
import { ScenarioError } from '../../model/errors.js';
import { validateScenario } from '../../model/validate.js';
import { readJsonFile } from '../io.js';
import { progressBar } from '../progress.js';

/** `batchwise train`, loaded only when it runs (registration: train.ts). */
export interface TrainOptions {
  out: string;
  algo: string;
  task: string;
  episodes?: number;
  requests?: number;
  seed?: number;
  svg?: string;
}

export function runTrain(file: string, o: TrainOptions): void {
  if (o.algo !== 'reinforce' && o.algo !== 'ppo') throw new InvalidArgumentError(`--algo must be reinforce or ppo (got ${o.algo})`);
  if (o.task !== 'routing' && o.task !== 'batching') throw new InvalidArgumentError(`--task must be routing or batching (got ${o.task})`);
  const algo: Algo = o.algo;
  const f = validateFleet(readJsonFile(file));
  const bar = progressBar(process.stderr.isTTY === true, `train ${algo}`);
  const seed = o.seed ?? 1;
  try {
    if (o.task === 'routing') {
      const r = trainRouter(f, {
        algo,
        episodes: o.episodes,
        requestsPerEpisode: o.requests,
        seed,
        onEpisode: (i, n, p) => bar.update(i, n, `E[R] ${(p.meanResponseTime * 1e3).toFixed(2)} ms`),
      });
      bar.stop();
      writeFileSync(o.out, `${JSON.stringify({ ...r.weights, training: { algo, seed, episodes: r.curve.length, simulatedRequests: r.simulatedRequests, gradientSteps: r.gradientSteps, seconds: r.seconds } }, null, 2)}\n`);
      const check = simulateFleet(f, LinearRouter.fromWeights(f, r.weights, seed), { requests: 200_000, seed: seed + 1 });
      process.stdout.write(
        `Trained the router by ${algo} in ${r.seconds.toFixed(1)} s (${r.simulatedRequests.toLocaleString('en-US')} simulated requests, ${r.gradientSteps} gradient steps); wrote ${o.out}\n` +
          `  greedy router on a fresh seed: mean response ${(check.meanResponseTime * 1e3).toFixed(3)} ms ` +
          `(${check.classes.map((c) => `${c.name} ${(c.meanResponseTime * 1e3).toFixed(3)} ms, p99 ${(c.p99 * 1e3).toFixed(2)} ms`).join('; ')})\n`,
      );
      if (o.svg) {
        writeFileSync(o.svg, renderCurveSvg([{ label: `${algo}: mean response (ms)`, values: r.curve.map((p) => p.meanResponseTime * 1e3) }], { title: `Router training (${algo})`, yLabel: 'mean response time (ms)' }));
      }
    } else {
      const kind = f.kinds[0];
      if (f.classes[0].arrivalProcess) {
        // The learner samples control limits for a Poisson queue; under MMPP the optimum is per phase (fleet plan solves it exactly).
        throw new ScenarioError('classes[0].arrivalProcess', 'train --task batching learns one control limit for Poisson arrivals only; for an MMPP class, fleet plan gives the exact per-phase optimum');
      }
      const rate = f.classes[0].arrivalRate / kind.count;
      const params = validateScenario(pairScenario(kind, 0, rate, f.latencyWeight, f.powerWeight)).params;
      const r = trainBatching(params, { algo, iterations: o.episodes, requests: o.requests, seed, onIteration: (i, n, g) => bar.update(i, n, `cost ${g.toPrecision(4)}`) });
      bar.stop();
      writeFileSync(o.out, `${JSON.stringify({ format: 'batchwise.learned-batching.v1', policy: `control-limit:${r.controlLimit}`, ...r }, null, 2)}\n`);
      process.stdout.write(`Learned control limit ${r.controlLimit} by ${algo} in ${r.seconds.toFixed(1)} s (${r.simulatedRequests.toLocaleString('en-US')} simulated requests); wrote ${o.out}\n`);
      if (o.svg) {
        writeFileSync(o.svg, renderCurveSvg([{ label: `${algo}: mean sampled cost`, values: r.curve }], { title: `Batching training (${algo})`, yLabel: 'average cost', xLabel: 'iteration' }));
      }
    }
  } finally {
    bar.stop();
  }
}
