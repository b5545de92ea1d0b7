import { describe, expect, it } from 'vitest';
import { parseFleetSimulateRequest } from '../../src/fleet/request.js';
import { validateFleet } from '../../src/fleet/scenario.js';
import { ScenarioError } from '../../src/model/errors.js';
import { SCENARIO } from '../../src/model/shape.js';
import { validateScenario } from '../../src/model/validate.js';
import { solveBatchJsonNames } from '../../src/service/convert/jsonNames.js';
import { parseSimulateRequest } from '../../src/sim/request.js';
import { jsonNames, protoName } from '../../src/validate/index.js';
import { twoClassFleet } from '../fleet/helpers.js';
import { specScenario } from '../helpers/scenarios.js';

/**
 * proto3 JSON: parsers accept a field's proto name (`arrival_rate`) as well as its JSON name
 * (`arrivalRate`). `protoSpelled` writes every field by its proto name; keys of the maps named
 * in `maps` (user names, such as the classes of a fleet's serviceTime) stay as they are.
 */
function protoSpelled(v: unknown, maps: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(v)) return v.map((x) => protoSpelled(x, maps));
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [
      protoName(k),
      maps.has(k) && typeof x === 'object' && x !== null ? Object.fromEntries(Object.entries(x).map(([n, y]) => [n, protoSpelled(y, maps)])) : protoSpelled(x, maps),
    ]),
  );
}

function refusal(f: () => unknown): { field: string; reason: string } {
  try {
    f();
  } catch (e) {
    if (e instanceof ScenarioError) return { field: e.field, reason: e.reason };
    throw e;
  }
  throw new Error('accepted');
}

const MMPP = { mmpp: { rates: [1000, 3000], generator: [-2, 2, 6, -6] } };
const BURST = { burst: { meanRate: 2000, peakToMean: 2.5, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } };

describe('proto field names beside JSON names', () => {
  it('protoName inverts protoc’s json_name rule', () => {
    expect(['arrivalRate', 'maxBatchSize', 'p99Target', 'cv', 'busyLinear'].map(protoName)).toEqual(['arrival_rate', 'max_batch_size', 'p99_target', 'cv', 'busy_linear']);
  });

  it('a scenario spelled with proto names, at every depth, validates as the JSON-named one', () => {
    const s = specScenario(2500, 1e-4, { solver: { maxQueue: 400, maxIterations: 50, method: 'VALUE_ITERATION' } });
    expect(protoSpelled(s)).toMatchObject({ arrival_rate: 2500, service_time: { linear: { per_item: s.serviceTime.linear!.perItem } }, solver: { max_queue: 400 } });
    expect(validateScenario(protoSpelled(s))).toEqual(validateScenario(s));
    for (const process of [MMPP, BURST]) {
      const bursty = { ...specScenario(0, 0), arrivalProcess: process };
      expect(validateScenario(protoSpelled(bursty))).toEqual(validateScenario(bursty));
    }
    // Names mixed freely, one spelling per field.
    expect(validateScenario({ ...s, arrivalRate: undefined, arrival_rate: 2500 })).toEqual(validateScenario(s));
  });

  it('a field given by both names at once is refused, naming it and both spellings', () => {
    const s = specScenario(2500, 0);
    expect(refusal(() => validateScenario({ ...s, arrival_rate: 2500 }))).toEqual({ field: 'arrivalRate', reason: 'give either arrivalRate or arrival_rate (its proto field name), not both' });
    const linear = { perItem: 1e-4, per_item: 1e-4, base: 1e-3 };
    expect(refusal(() => validateScenario({ ...s, serviceTime: { linear } })).field).toBe('serviceTime.linear.perItem');
    expect(refusal(() => validateScenario({ ...s, arrivalProcess: { burst: { ...BURST.burst, mean_rate: 2000 } } })).field).toBe('arrivalProcess.burst.meanRate');
  });

  it('other names are still unknown fields, listed by their JSON names', () => {
    expect(refusal(() => validateScenario({ ...specScenario(2500, 0), arrival_ratee: 1 }))).toEqual({
      field: 'arrival_ratee',
      reason: 'is not a known field (expected one of: arrivalRate, maxBatchSize, serviceTime, power, objective, solver, arrivalProcess, restrictions)',
    });
  });

  it('a fleet with proto names validates the same; class names in the serviceTime map are kept as written', () => {
    const f = twoClassFleet(2, 1);
    const spelled = protoSpelled(f, new Set(['serviceTime'])) as { accelerators: Array<Record<string, unknown>> };
    expect(Object.keys(spelled.accelerators[0].service_time as object)).toEqual(['vision', 'language']);
    const values = (x: ReturnType<typeof validateFleet>) => ({ ...x, kinds: x.kinds.map(({ pairs, busyPower, name, count }) => ({ pairs, busyPower, name, count })) });
    expect(values(validateFleet(spelled))).toEqual(values(validateFleet(f)));
    const snakeClass = { ...f, classes: [{ ...f.classes[0], name: 'big_model' }, f.classes[1]] };
    snakeClass.accelerators = snakeClass.accelerators.map((a) => ({ ...a, serviceTime: { big_model: a.serviceTime.vision, language: a.serviceTime.language } }));
    expect(validateFleet(protoSpelled(snakeClass, new Set(['serviceTime']))).classes[0].name).toBe('big_model');
  });

  it('requests read proto names too (Simulate, FleetSimulate, a SolveBatch grid)', () => {
    const sim = parseSimulateRequest({ scenario: protoSpelled(specScenario(2500, 0)), warmup_requests: 2000, confidence_batches: 16 });
    expect([sim.warmup, sim.ciBatches, sim.scenario.params.arrivalRate]).toEqual([2000, 16, 2500]);
    const fleet = parseFleetSimulateRequest({ fleet: twoClassFleet(2, 1), warmup_requests: '3000' });
    expect(fleet.warmup).toBe(3000);
    const batch = solveBatchJsonNames({ disable_warm_start: true, grid: { base: protoSpelled(specScenario(1000, 0)), arrival_rate: [1, 2] } });
    expect(batch).toEqual({ disableWarmStart: true, grid: { base: specScenario(1000, 0), arrivalRate: [1, 2] } });
  });

  it('input already in JSON names is passed through, not copied', () => {
    const s = { ...specScenario(0, 0), arrivalProcess: MMPP };
    expect(jsonNames(s, SCENARIO)).toBe(s);
  });
});
