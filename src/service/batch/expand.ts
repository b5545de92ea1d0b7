import { LimitError, ScenarioError } from '../../model/errors.js';
import { isObj, type Obj } from '../../validate/index.js';
import { scenarioFromProto } from '../convert/scenario.js';
import type { ScenarioParameters, SolveBatchRequest } from '../messages.js';

/** One scenario of a batch, in its JSON form (not yet validated), with what identifies it. */
export interface BatchEntry {
  readonly index: number;
  readonly parameters: ScenarioParameters;
  readonly scenario: unknown;
}

/** A batch whose size is known and checked, built a slice at a time (so no step holds the thread long). */
export interface BatchSource {
  readonly count: number;
  /** Entries from index `from` to `to` (exclusive), in index order. */
  entries(from: number, to: number): BatchEntry[];
}

/**
 * A SolveBatch request → its scenarios. A grid is the cartesian product of its lists (an
 * empty list keeps the base's value), arrivalRate varying slowest, then maxBatchSize,
 * latencyWeight, powerWeight. The count is checked before anything is built.
 */
export function expandBatch(req: SolveBatchRequest, maxScenarios: number): BatchEntry[] {
  const source = openBatch(req, maxScenarios);
  return source.entries(0, source.count);
}

/** The request's shape and count, checked against `maxScenarios`; nothing is built yet. */
export function openBatch(req: SolveBatchRequest, maxScenarios: number): BatchSource {
  if (req.list && req.grid) throw new ScenarioError('source', 'give either list or grid, not both');
  if (req.list) {
    const scenarios = req.list.scenarios ?? [];
    checkCount(scenarios.length, maxScenarios, 'list.scenarios');
    return {
      count: scenarios.length,
      entries: (from, to) =>
        scenarios.slice(from, to).map((s, i) => {
          const scenario = scenarioFromProto(s);
          return { index: from + i, scenario, parameters: parametersOf(scenario) };
        }),
    };
  }
  if (req.grid) return openGrid(req.grid, maxScenarios);
  throw new ScenarioError('source', 'is required: give list (scenarios) or grid (base plus lists)');
}

function openGrid(g: NonNullable<SolveBatchRequest['grid']>, maxScenarios: number): BatchSource {
  const base = scenarioFromProto(g.base);
  if (!isObj(base)) throw new ScenarioError('grid.base', 'is required');
  const objective = isObj(base.objective) ? base.objective : {};
  const axis = <T>(list: T[] | undefined, fallback: unknown): Array<T | undefined> => (list && list.length > 0 ? list : [fallback as T | undefined]);
  const rates = axis(g.arrivalRate, base.arrivalRate);
  const sizes = axis(g.maxBatchSize, base.maxBatchSize);
  const lat = axis(g.latencyWeight, objective.latencyWeight);
  const pow = axis(g.powerWeight, objective.powerWeight);
  const count = rates.length * sizes.length * lat.length * pow.length;
  checkCount(count, maxScenarios, 'grid');
  const at = (index: number): BatchEntry => {
    // Row-major: powerWeight fastest, arrivalRate slowest.
    let k = index;
    const powerWeight = pow[k % pow.length];
    k = Math.floor(k / pow.length);
    const latencyWeight = lat[k % lat.length];
    k = Math.floor(k / lat.length);
    const maxBatchSize = sizes[k % sizes.length];
    const arrivalRate = rates[Math.floor(k / sizes.length)];
    const scenario: Obj = { ...base, objective: defined({ ...objective, latencyWeight, powerWeight }) };
    if (arrivalRate !== undefined) scenario.arrivalRate = arrivalRate;
    if (maxBatchSize !== undefined) scenario.maxBatchSize = maxBatchSize;
    return { index, scenario, parameters: parametersOf(scenario) };
  };
  return {
    count,
    entries: (from, to) => Array.from({ length: Math.max(0, Math.min(to, count) - from) }, (_, i) => at(from + i)),
  };
}

function checkCount(n: number, max: number, field: string): void {
  if (n > max) throw new LimitError(field, `gives ${n} scenarios, above this server's maxScenariosPerBatch limit ${max}`);
}

function defined(o: Obj): Obj {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The tags of a result: the scenario's own numbers, whatever their validity. */
export function parametersOf(s: unknown): ScenarioParameters {
  const o = isObj(s) ? s : {};
  const obj = isObj(o.objective) ? o.objective : {};
  return {
    arrivalRate: num(o.arrivalRate),
    maxBatchSize: num(o.maxBatchSize),
    latencyWeight: num(obj.latencyWeight),
    powerWeight: num(obj.powerWeight),
  };
}
