import { describe, expect, it } from 'vitest';
import { validateFleet } from '../../src/fleet/scenario.js';
import { ScenarioError } from '../../src/model/errors.js';
import { twoClassFleet } from './helpers.js';

function fieldOf(input: unknown): string {
  try {
    validateFleet(input);
  } catch (e) {
    if (e instanceof ScenarioError) return e.field;
    throw e;
  }
  return '(accepted)';
}

describe('fleet validation names the bad field', () => {
  const ok = () => structuredClone(twoClassFleet(2, 1));
  it('accepts the two-class mix and defaults weight, batching, objective', () => {
    const f = validateFleet(ok());
    expect(f.accelerators).toBe(2);
    expect(f.batching).toBe('PER_CLASS');
    expect(f.classes[0].weight).toBe(1);
    expect(f.kinds[0].pairs[1].cv).toBe(0.5);
  });
  const cases: [string, (s: ReturnType<typeof ok>) => unknown, string][] = [
    ['missing classes', (s) => ({ ...s, classes: [] }), 'classes'],
    ['negative rate', (s) => ((s.classes[1].arrivalRate = -1), s), 'classes[1].arrivalRate'],
    ['repeated class name', (s) => ((s.classes[1].name = 'vision'), s), 'classes[1].name'],
    ['unknown top-level field', (s) => ({ ...s, routers: 1 }), 'routers'],
    ['bad batching', (s) => ({ ...s, batching: 'SOMETIMES' }), 'batching'],
    ['zero count', (s) => ((s.accelerators[0].count = 0), s), 'accelerators[0].count'],
    ['service time for an unknown class', (s) => ((s.accelerators[0].serviceTime.speech = { linear: { perItem: 1, base: 1 } }), s), 'accelerators[0].serviceTime.speech'],
    ['a class without a service time', (s) => (delete (s.accelerators[0].serviceTime as Record<string, unknown>).language, s), 'accelerators[0].serviceTime.language'],
    ['bad per-item time (path inside the pair)', (s) => ((s.accelerators[0].serviceTime.vision.linear!.perItem = -1), s), 'accelerators[0].serviceTime.vision.linear.perItem'],
    ['gamma without cv', (s) => (delete s.accelerators[0].serviceTime.language.cv, s), 'accelerators[0].serviceTime.language.cv'],
    ['bad power', (s) => ((s.accelerators[0].power.idleWatts = -5), s), 'accelerators[0].power.idleWatts'],
    ['objective all zero', (s) => ({ ...s, objective: { latencyWeight: 0, powerWeight: 0 } }), 'objective'],
    ['more work than the fleet can do', (s) => ((s.classes[1].arrivalRate = 1000), s), 'classes'],
  ];
  for (const [name, mutate, field] of cases) {
    it(name, () => expect(fieldOf(mutate(ok()))).toBe(field));
  }
});
