/**
 * The baseline table of issue 19: every baseline and the exact optimum simulated on one seed
 * (common random numbers: the same arrival streams, and the same service-time stream), each
 * row with its per-class mean response times, power and g (95 % batch-means intervals) and its
 * gap to the simulated optimum, paired group by group; the solve's exact g* and certified
 * interval head the table.
 */
import type { ClassesParams } from '../model/classes/params.js';
import type { ClassesSolveResult } from '../solve/classes/result.js';
import { pairedGap, simulateClasses, type ClassesSimulation } from '../sim/joint/simulate.js';
import { LinearJointAgent } from './learn/agent.js';
import { trainJointAgent, type JointTrainOptions } from './learn/train.js';
import {
  delayGrid,
  fifoBaseline,
  limitGrid,
  longestQueueBaseline,
  optimalBaseline,
  roundRobinBaseline,
  tritonBaseline,
  tune,
  type Baseline,
} from './baselines.js';
import { jointPolicies } from '../sim/joint/chooser.js';

export interface BaselineRow {
  readonly name: string;
  readonly parameters: string;
  readonly sim: ClassesSimulation;
  readonly gap: number;
  readonly gapCi: number | null;
}

export interface CompareOptions {
  /** Requests measured per table run (default 10⁶) and per tuning run (default 10⁵). */
  readonly requests?: number;
  readonly tuneRequests?: number;
  readonly seed?: number;
  readonly tuneSeed?: number;
  /** Training of the learned agents (algo is set per row). */
  readonly training?: Omit<JointTrainOptions, 'algo'>;
  readonly onRow?: (name: string) => void;
}

export function compareBaselines(p: ClassesParams, exact: ClassesSolveResult, o: CompareOptions = {}): BaselineRow[] {
  const run = { requests: o.requests ?? 1_000_000, seed: o.seed ?? 1, ciBatches: 32 };
  const tuning = { requests: o.tuneRequests ?? 100_000, seed: o.tuneSeed ?? 999, ciBatches: 2 };
  const B = p.classes.map((c) => c.maxBatchSize);
  const rr = tune(p, B.map(limitGrid), (x) => roundRobinBaseline(p, x), tuning);
  const tr = tune(p, p.classes.map((c) => delayGrid(c.meanService[c.maxBatchSize])), (x) => tritonBaseline(p, x), tuning);
  const baselines: Baseline[] = [
    optimalBaseline(p, exact.policy),
    longestQueueBaseline(p),
    { ...rr.best, parameters: `${rr.best.parameters} (best of ${rr.tried})` },
    fifoBaseline(p),
    { ...tr.best, parameters: `${tr.best.parameters} (best of ${tr.tried})` },
  ];
  for (const algo of ['reinforce', 'ppo'] as const) {
    o.onRow?.(`training ${algo}`);
    const t = trainJointAgent(p, { ...o.training, algo });
    const label = algo === 'ppo' ? 'PPO agent' : 'REINFORCE agent';
    const eps = t.curve.length;
    baselines.push({
      name: label,
      parameters: `linear softmax over {wait, serve c}, ${eps} episodes, ${t.simulatedRequests} requests; greedy`,
      build: () => jointPolicies(new LinearJointAgent(p, t.theta, false, 0, label), B),
    });
  }
  const rows: BaselineRow[] = [];
  let opt: ClassesSimulation | null = null;
  for (const b of baselines) {
    o.onRow?.(b.name);
    const sim = simulateClasses(p, b.build(), run);
    opt ??= sim;
    const { gap, ci } = pairedGap(sim, opt);
    rows.push({ name: b.name, parameters: b.parameters, sim, gap, gapCi: b === baselines[0] ? 0 : ci });
  }
  return rows;
}

const ms = (x: number): string => (x * 1e3).toFixed(3);
const pm = (x: number, h: number | null, f: (v: number) => string): string => `${f(x)} ± ${h === null ? '?' : f(h)}`;
const g6 = (x: number): string => x.toFixed(6);
const pct = (x: number): string => x.toFixed(2);

/** The rows as a Markdown table, headed by the exact optimum. */
export function renderBaselineTable(p: ClassesParams, exact: ClassesSolveResult, rows: readonly BaselineRow[]): string {
  const names = p.classes.map((c) => c.name);
  const lines = [
    `Exact optimum (solve): g* = ${exact.averageCost.toPrecision(10)}, certified interval [${exact.averageCostLower.toPrecision(10)}, ${exact.averageCostUpper.toPrecision(10)}]; ` +
      exact.classes.map((c) => `E[R_${c.name}] = ${ms(c.meanResponseTime)} ms`).join(', ') +
      `, E[P] = ${exact.meanPower.toFixed(2)} W.`,
    '',
    `| policy | parameters | ${names.map((n) => `R̄ ${n} (ms)`).join(' | ')} | power (W) | g | gap to optimum (paired) | gap % of g* |`,
    `|---|---|${names.map(() => '---:').join('|')}|---:|---:|---:|---:|`,
  ];
  for (const r of rows) {
    const cls = r.sim.classes.map((c) => pm(c.meanResponseTime, c.meanResponseCi, ms));
    const rel = (x: number | null): number | null => (x === null ? null : (100 * x) / exact.averageCost);
    lines.push(
      `| ${r.name} | ${r.parameters} | ${cls.join(' | ')} | ${pm(r.sim.meanPower, r.sim.meanPowerCi, (v) => v.toFixed(2))} | ${pm(r.sim.averageCost, r.sim.averageCostCi, g6)} | ${pm(r.gap, r.gapCi, g6)} | ${pm(rel(r.gap)!, rel(r.gapCi), pct)} |`,
    );
  }
  return lines.join('\n');
}
