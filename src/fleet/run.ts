/**
 * One fleet simulation from names (CLI, RPC): builds the router, solving the segregation
 * plan first when asked for it, or loading a trained router's weights.
 */
import { ScenarioError } from '../model/errors.js';
import { LinearRouter, type RouterWeights } from './learn/linearRouter.js';
import type { FleetSimulation } from './result.js';
import { parseRouterName, simpleRouter } from './routers.js';
import type { FleetParams } from './scenario.js';
import { planSegregation, segregationSetup, type SegregationPlan } from './segregation.js';
import { simulateFleet, type FleetSimulateOptions } from './simulate.js';

export interface FleetRunOptions extends Omit<FleetSimulateOptions, 'tables'> {
  /** Weights of a trained router (`batchwise train`), for router `learned`. */
  readonly learned?: RouterWeights;
}

export interface FleetRun {
  readonly simulation: FleetSimulation;
  /** The exact plan, when the router was segregation. */
  readonly plan?: SegregationPlan;
}

export async function runFleet(f: FleetParams, routerName: string, o: FleetRunOptions = {}): Promise<FleetRun> {
  const name = parseRouterName(routerName);
  const seed = o.seed ?? 1;
  if (name === 'segregation') {
    if (f.batching === 'MIXED') throw new ScenarioError('batching', 'segregation dedicates accelerators to classes: use PER_CLASS batching');
    const plan = await planSegregation(f, { signal: o.signal });
    if (plan === null) throw new ScenarioError('accelerators', 'no segregation of this fleet keeps every class stable');
    const { router, tables } = segregationSetup(f, plan, seed);
    return { simulation: simulateFleet(f, router, { ...o, tables }), plan };
  }
  if (name === 'learned') {
    if (!o.learned) throw new ScenarioError('router', 'learned needs trained weights (batchwise train … --out POLICY.json, then --weights POLICY.json)');
    return { simulation: simulateFleet(f, LinearRouter.fromWeights(f, o.learned, seed), o) };
  }
  return { simulation: simulateFleet(f, simpleRouter(name, f.accelerators, f.classes.length, seed), o) };
}
