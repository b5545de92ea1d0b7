import { LimitError, ScenarioError } from '../model/errors.js';
import type { Policy } from '../policy/policy.js';
import { ArrivalSource, classSeed, type ArrivalStream } from '../sim/arrivals.js';
import { runEngine, type EngineSystem } from '../sim/engine/index.js';
import { MmppArrivals } from '../sim/mmpp.js';
import { defaultWarmup, SIM_DEFAULTS, SIM_LIMITS } from '../sim/limits.js';
import type { SimPolicy } from '../sim/policies/types.js';
import { buildSimPolicy, parseSimPolicySpec } from '../sim/policySpec.js';
import { tablePolicy } from '../sim/simulate.js';
import { summarizeFleet, type FleetSimulation } from './result.js';
import type { Router } from './routers.js';
import { acceleratorKinds, type FleetParams } from './scenario.js';

export interface FleetSimulateOptions {
  /** Requests to measure over all classes (default 10⁶). */
  readonly requests?: number;
  readonly warmup?: number;
  readonly seed?: number;
  readonly ciBatches?: number;
  /**
   * State policies that replace the group's `policy` on given accelerators and classes:
   * tables[a][c] (PER_CLASS) — segregation puts each group's exact optimum here (one table
   * per arrival phase, acting on the class's current phase, for a class with MMPP arrivals).
   */
  readonly tables?: readonly (readonly (Policy | null)[])[];
  readonly signal?: AbortSignal;
  readonly onServed?: (tag: number, cls: number, acc: number, response: number) => void;
}

export { classSeed };

/** The fleet as the engine's system: accelerator a serves class c with its kind's pair model for c. */
function fleetSystem(f: FleetParams): EngineSystem {
  const kindOf = acceleratorKinds(f);
  const servers = f.kinds.map((k) => ({ maxBatchSize: k.maxBatchSize, service: k.pairs, busyPower: k.busyPower, idlePower: k.idlePower }));
  return { servers: Array.from(kindOf, (k) => servers[k]), mixed: f.batching === 'MIXED' };
}

/** One arrival stream per class: Poisson, or MMPP when the class has an arrival process. */
function classArrivals(f: FleetParams, seed: number): ArrivalStream[] {
  return f.classes.map((cl, c) =>
    cl.arrivalProcess ? new MmppArrivals(cl.arrivalProcess, classSeed(seed, c)) : ArrivalSource.poisson(cl.arrivalRate, classSeed(seed, c)),
  );
}

/** Builds every accelerator's policies: [a][c] per class, or [a][0] for MIXED batching. */
export function buildFleetPolicies(f: FleetParams, tables?: FleetSimulateOptions['tables']): SimPolicy[][] {
  const kindOf = acceleratorKinds(f);
  const out: SimPolicy[][] = [];
  for (let a = 0; a < f.accelerators; a++) {
    const k = kindOf[a];
    const kind = f.kinds[k];
    const field = `accelerators[${k}].policy`;
    const classes = f.batching === 'MIXED' ? [0] : f.classes.map((_, c) => c);
    out.push(
      classes.map((c) => {
        const table = tables?.[a]?.[c];
        if (table) return tablePolicy(table, kind.maxBatchSize, 'optimal');
        const spec = parseSimPolicySpec(kind.policy, kind.maxBatchSize, field);
        if (spec.kind === 'optimal') {
          throw new ScenarioError(field, 'optimal is solved per segregated group: use the segregation router (fleet plan), or name a policy');
        }
        return buildSimPolicy(spec, kind.pairs[c]);
      }),
    );
  }
  return out;
}

/**
 * Simulates the fleet under a router. Deterministic: the same inputs and seed give the same
 * result; class 0's arrivals and accelerator 0's service times are the single-server
 * simulator's streams for that seed, so a fleet of one reproduces `simulate` exactly.
 */
export function simulateFleet(f: FleetParams, router: Router, opts: FleetSimulateOptions = {}): FleetSimulation {
  const requests = opts.requests ?? SIM_DEFAULTS.requests;
  const seed = opts.seed ?? SIM_DEFAULTS.seed;
  if (!Number.isInteger(requests) || requests < 1 || requests > SIM_LIMITS.maxRequests) {
    throw new ScenarioError('requests', `must be an integer in 1..${SIM_LIMITS.maxRequests} (got ${requests})`);
  }
  if (!Number.isSafeInteger(seed) || seed < 0) throw new ScenarioError('seed', `must be a non-negative integer (got ${seed})`);
  const ciBatches = opts.ciBatches ?? SIM_DEFAULTS.ciBatches;
  const warmup = opts.warmup ?? defaultWarmup(requests);
  const policies = buildFleetPolicies(f, opts.tables);
  const out = runEngine(fleetSystem(f), policies, classArrivals(f, seed), router, {
    requests,
    warmup,
    ciBatches,
    seed,
    maxQueued: SIM_LIMITS.maxQueued,
    overflow: (limit, now) =>
      new LimitError('router', `an accelerator queue passed ${limit} waiting requests at t = ${now} s: the fleet cannot keep up under this router and policy (unstable)`),
    signal: opts.signal,
    onServed: opts.onServed,
  });
  return summarizeFleet(f, out, { router: router.name, seed });
}
