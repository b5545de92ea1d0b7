/**
 * What the client sends, in JSON names. Files may spell fields by their proto names
 * (`arrival_rate`), as proto3 JSON allows and the validators accept, but grpc-js serializes
 * messages by the JSON names only and would drop the others silently: so scenarios, fleets and
 * batch requests are put into JSON names before they go out.
 */
import { FLEET } from '../../fleet/shape.js';
import { SCENARIO } from '../../model/shape.js';
import { CLASSES_SCENARIO } from '../../model/classes/shape.js';
import { isClassesInput } from '../../model/classes/validate.js';
import { isObj, jsonNames, renameProtoFields, type Obj } from '../../validate/index.js';
import type { SolveBatchRequest } from '../messages.js';

/** A scenario in JSON names, by its own shape: the multi-class form (a `classes` field) or the single-class one. */
export const scenarioJsonNames = (scenario: unknown, path = ''): unknown => jsonNames(scenario, isClassesInput(scenario) ? CLASSES_SCENARIO : SCENARIO, path);
export const fleetJsonNames = (fleet: unknown, path = ''): unknown => jsonNames(fleet, FLEET, path);

const BATCH_FIELDS = ['list', 'grid', 'disableWarmStart', 'skipPercentiles'] as const;
const GRID_FIELDS = ['base', 'arrivalRate', 'maxBatchSize', 'latencyWeight', 'powerWeight'] as const;

/** A SolveBatchRequest in JSON names: its own fields, the grid's, and every scenario in it. */
export function solveBatchJsonNames(request: unknown): SolveBatchRequest {
  if (!isObj(request)) return request as SolveBatchRequest;
  const out: Obj = { ...renameProtoFields(request, '', BATCH_FIELDS) };
  if (isObj(out.grid)) {
    const grid = { ...renameProtoFields(out.grid, 'grid', GRID_FIELDS) };
    if (grid.base !== undefined) grid.base = scenarioJsonNames(grid.base, 'grid.base');
    out.grid = grid;
  }
  if (isObj(out.list) && Array.isArray(out.list.scenarios)) {
    out.list = { ...out.list, scenarios: out.list.scenarios.map((s: unknown, i) => scenarioJsonNames(s, `list.scenarios[${i}]`)) };
  }
  return out as SolveBatchRequest;
}
