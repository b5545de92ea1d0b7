import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileModel } from '../../src/model/compile.js';
import type { Scenario, ValidatedScenario } from '../../src/model/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import { responseTimeDistribution, type ResponseTimeDistribution } from '../../src/latency/distribution.js';
import { readConfig } from '../../src/plan/export/readConfig.js';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import type { Policy } from '../../src/policy/policy.js';
import { buildSimPolicy, parseSimPolicySpec } from '../../src/sim/policySpec.js';
import type { SimPolicy } from '../../src/sim/policies/types.js';
import { simulate } from '../../src/sim/simulate.js';
import { meanHalfWidth } from '../../src/sim/stats.js';
import { solveScenarioDetailed } from '../../src/solve/solveScenario.js';
import { SPEC_CASES, specCaseScenario } from '../helpers/specTable.js';
import { specScenario } from '../helpers/scenarios.js';

/**
 * The exact response-time percentiles (src/latency/distribution.ts: the shifted-Erlang mixture,
 * uniformization, the Euler-inverted transform) against batchwise's own discrete-event
 * simulator (src/sim), driven the way `batchwise simulate` drives it: a policy spec through
 * parseSimPolicySpec/buildSimPolicy (or a serving system's config file through the export's
 * readConfig), then `simulate`.
 *
 * The simulator reports percentiles without confidence intervals (docs/simulator.md, Output),
 * so the test builds them from independent replications: REPLICATIONS runs of REQUESTS measured
 * requests on fixed, distinct seeds, each starting empty with the simulator's default warm-up. The
 * replications' percentile estimates are i.i.d.; the interval is their mean ± Student's t half-width,
 * widened by the histogram's documented resolution (each reported quantile is within 2^-11 of
 * the order statistic, relatively). Eighteen intervals are checked (6 scenarios × p50, p99, p99.9),
 * so each is taken at level 1 − 0.05/18 (Bonferroni): the family of checks holds with ≥ 95 %
 * probability for any seeds, rather than the ~40 % that eighteen 95 % intervals would give.
 *
 * So the test can fail, each p99 interval must also exclude 0.9 × the exact p99, and each
 * p99.9 half-width must stay within 10 % of the estimate, i.e. informative (measured: 0.25–2.5 %,
 * and 6.9 % for the MMPP case, whose 50 ms bursts every 250 ms make the far tail the noisiest).
 */
const REPLICATIONS = 16;
const REQUESTS = 500_000;
const CHECKED = 6 * 3;
const LEVEL = 1 - 0.05 / CHECKED;
/** Relative resolution of the simulator's log-linear histogram (docs/simulator.md). */
const HISTOGRAM_RESOLUTION = 2 ** -11;

const FIT = { perItem: 0.0001438, base: 0.0018874 } as const;
const POWER = { idleWatts: 40, busyLinear: { perItem: 3, base: 80 } } as const;

function scenario(arrivalRate: number, B: number, service: Scenario['serviceTime'], extra: Partial<Scenario> = {}): ValidatedScenario {
  return validateScenario({ arrivalRate, maxBatchSize: B, serviceTime: service, power: { ...POWER }, objective: { latencyWeight: 1, powerWeight: 1e-4 }, ...extra });
}

type Key = 'p50' | 'p99' | 'p999';
const KEYS: readonly Key[] = ['p50', 'p99', 'p999'];

interface Interval {
  readonly mean: number;
  readonly half: number;
}

interface Outcome {
  readonly exact: ResponseTimeDistribution;
  readonly intervals: Record<Key, Interval>;
}

/** REPLICATIONS independent runs of one simulator policy; a fresh policy object per run (no state carried over). */
function replicate(sc: ValidatedScenario, makePolicy: () => SimPolicy, firstSeed: number): Record<Key, Interval> {
  const values: Record<Key, Float64Array> = { p50: new Float64Array(REPLICATIONS), p99: new Float64Array(REPLICATIONS), p999: new Float64Array(REPLICATIONS) };
  for (let r = 0; r < REPLICATIONS; r++) {
    const res = simulate(sc.params, makePolicy(), { requests: REQUESTS, seed: firstSeed + r });
    expect(res.requests).toBeGreaterThanOrEqual(REQUESTS);
    for (const k of KEYS) values[k][r] = res.percentiles[k];
  }
  const out = {} as Record<Key, Interval>;
  for (const k of KEYS) {
    const v = values[k];
    const mean = v.reduce((a, b) => a + b, 0) / REPLICATIONS;
    out[k] = { mean, half: (meanHalfWidth(v, REPLICATIONS, LEVEL) as number) + HISTOGRAM_RESOLUTION * mean };
  }
  return out;
}

function exactOf(sc: ValidatedScenario, policy: Policy, S: number, method: string): ResponseTimeDistribution {
  const d = responseTimeDistribution(compileModel(sc.params, S), policy, evaluatePolicy(sc.params, policy));
  expect(d.method).toBe(method);
  // The exact side is exact to far below the simulation's resolution.
  expect(d.accuracy.percentileRelative).toBeLessThan(1e-4);
  return d;
}

const ms = (s: number): string => (s * 1e3).toFixed(4);
const report: string[] = [];

function expectContains(name: string, o: Outcome): void {
  for (const k of KEYS) {
    const { mean, half } = o.intervals[k];
    const exact = o.exact.percentiles[k];
    report.push(`${name} ${k}: exact ${ms(exact)} ms, simulated ${ms(mean)} ± ${ms(half)} ms (${((100 * half) / mean).toFixed(2)} %)`);
    expect(Math.abs(mean - exact), `${name} ${k}: exact ${exact} vs ${mean} ± ${half}`).toBeLessThanOrEqual(half);
  }
  // The intervals can tell: a 10 % error in p99 would be caught, and p99.9 is resolved to 10 %.
  const p99 = o.intervals.p99;
  expect(Math.abs(p99.mean - 0.9 * o.exact.percentiles.p99)).toBeGreaterThan(p99.half);
  expect(o.intervals.p999.half).toBeLessThan(0.1 * o.intervals.p999.mean);
}

/** The CLI's route: a `--policy` string, parsed and built as `batchwise simulate` does. */
function cliPolicy(spec: string, sc: ValidatedScenario, optimal?: Policy): () => SimPolicy {
  return () => buildSimPolicy(parseSimPolicySpec(spec, sc.params.maxBatchSize, '--policy'), sc.params, optimal);
}

describe('exact response-time percentiles inside the simulator’s replication intervals', () => {
  // The measured intervals and exact values, printed with SIMCHK_REPORT=1.
  afterAll(() => {
    if (process.env.SIMCHK_REPORT) console.log(report.join('\n'));
  });

  describe('1. deterministic, the optimal policy of the §6 row λ = 1500 /s, w_pow = 1e-4', () => {
    let o: Outcome;
    let policy: Policy;
    beforeAll(async () => {
      const row = SPEC_CASES.find((c) => c.arrivalRate === 1500 && c.powerWeight === 1e-4 && c.distribution === 'DETERMINISTIC')!;
      const sc = validateScenario(specCaseScenario(row));
      const sol = await solveScenarioDetailed(sc);
      policy = { actions: sol.warmStart.policy, tailBatch: sc.params.maxBatchSize };
      o = { exact: exactOf(sc, policy, sol.result.solver.maxQueue, 'mixture'), intervals: replicate(sc, cliPolicy('optimal', sc, policy), 1001) };
    });
    it('is a control limit with partial batches above it', () => {
      const a = Array.from(policy.actions);
      const limit = a.findIndex((x) => x > 0);
      expect(limit).toBeGreaterThan(1);
      expect(a.slice(limit).some((x, i) => x < Math.min(limit + i, 32))).toBe(true);
    });
    it('p50, p99, p99.9 inside the intervals', () => expectContains('1 det optimal', o));
  });

  describe('2. exponential service, control limit: serve min(s, 8) from s = 3, λ = 1200 /s', () => {
    let o: Outcome;
    beforeAll(() => {
      const sc = scenario(1200, 8, { linear: { ...FIT }, distribution: 'EXPONENTIAL' });
      const policy: Policy = { actions: new Int32Array(3), tailBatch: 8 };
      o = { exact: exactOf(sc, policy, 64, 'uniformization'), intervals: replicate(sc, cliPolicy('control-limit:3', sc), 2001) };
    });
    it('p50, p99, p99.9 inside the intervals', () => expectContains('2 exp control-limit:3', o));
  });

  describe('3. gamma service cv = 0.5, B = 4, control limit 2, λ = 400 /s (transform route)', () => {
    let o: Outcome;
    beforeAll(() => {
      const sc = scenario(400, 4, { linear: { ...FIT }, distribution: 'GAMMA', cv: 0.5 });
      const policy: Policy = { actions: new Int32Array(2), tailBatch: 4 };
      o = { exact: exactOf(sc, policy, 32, 'transform'), intervals: replicate(sc, cliPolicy('control-limit:2', sc), 3001) };
    });
    it('p50, p99, p99.9 inside the intervals', () => expectContains('3 gamma cv0.5 control-limit:2', o));
  });

  describe('4. deterministic, a hand-made table: wait below 4, partial batches at s = 5 and 7, λ = 2500 /s', () => {
    let o: Outcome;
    beforeAll(() => {
      const sc = validateScenario(specScenario(2500, 1e-4));
      // s:        0  1  2  3  4  5  6  7 | ≥ 8: min(s, 32)
      const policy: Policy = { actions: Int32Array.of(0, 0, 0, 0, 4, 3, 6, 4), tailBatch: 32 };
      o = { exact: exactOf(sc, policy, 64, 'mixture'), intervals: replicate(sc, cliPolicy('table:0,0,0,0,4,3,6,4', sc), 4001) };
    });
    it('p50, p99, p99.9 inside the intervals', () => expectContains('4 det table', o));
  });

  describe('5. MMPP burst profile (mean 1000 /s, peak 2×), exponential service, B = 8, per-phase optimal policy', () => {
    let o: Outcome;
    let phases = 0;
    beforeAll(async () => {
      const sc = scenario(0, 8, { linear: { ...FIT }, distribution: 'EXPONENTIAL' }, {
        arrivalProcess: { burst: { meanRate: 1000, peakToMean: 2, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } },
      });
      const sol = await solveScenarioDetailed(sc);
      phases = sol.warmStart.phases;
      const policy: Policy = { actions: sol.warmStart.policy, tailBatch: 8, phases };
      o = { exact: exactOf(sc, policy, sol.result.solver.maxQueue, 'uniformization'), intervals: replicate(sc, cliPolicy('optimal', sc, policy), 5001) };
    });
    it('has two phases', () => expect(phases).toBe(2));
    it('p50, p99, p99.9 inside the intervals', () => expectContains('5 mmpp optimal', o));
  });

  describe('6. Triton dynamic_batching, max_queue_delay 0, preferred sizes 4 and 8, max_batch_size 8, deterministic, λ = 1500 /s', () => {
    const config = ['name: "googlenet"', 'max_batch_size: 8', 'dynamic_batching {', '  preferred_batch_size: [ 4, 8 ]', '  max_queue_delay_microseconds: 0', '}'].join('\n');
    const B = 8;
    const sc = validateScenario(specScenario(1500, 1e-4, { maxBatchSize: B }));
    // The setting as the export's evaluateConfig simulates it: the config file read into Triton's batcher.
    const fromFile = (): SimPolicy => readConfig('triton', config, 'config.pbtxt', B).policy;
    // Its queue-length policy, from Triton's documented rule (docs/simulator.md): with a 0 delay
    // the batcher never waits; at queue s it sends the largest preferred size ≤ min(s, max), or
    // min(s, max) when none fits. Nothing in src/ turns a setting into a Policy table, so it is written out here.
    const table = (max: number, preferred: readonly number[]): Policy => {
      const actions = new Int32Array(max + 1);
      for (let s = 1; s <= max; s++) {
        const fit = preferred.filter((p) => p <= Math.min(s, max));
        actions[s] = fit.length > 0 ? Math.max(...fit) : Math.min(s, max);
      }
      return { actions, tailBatch: max };
    };
    const policy = table(8, [4, 8]);
    let o: Outcome;
    beforeAll(() => {
      o = { exact: exactOf(sc, policy, 64, 'mixture'), intervals: replicate(sc, fromFile, 6001) };
    });
    it('the file reads as the CLI’s triton spec, and decides as the table at every queue length', () => {
      const sim = fromFile();
      expect(sim.name).toBe(cliPolicy('triton:delay=0us,preferred=4|8,max=8', sc)().name);
      expect(Array.from(policy.actions)).toEqual([0, 1, 2, 3, 4, 4, 4, 4, 8]);
      for (let s = 1; s <= 3 * B; s++) expect(sim.decide(s, 1, 1)).toBe(s < policy.actions.length ? policy.actions[s] : Math.min(s, B));
    });
    it('p50, p99, p99.9 inside the intervals', () => expectContains('6 triton delay0 preferred 4|8', o));
  });
});
