import { describe, expect, it } from 'vitest';
import { validateFleet } from '../../src/fleet/scenario.js';
import { validateScenario } from '../../src/model/validate.js';
import expected from './messages.json' with { type: 'json' };
import { ARRIVAL_CASES, FLEET_CASES, REQUEST_CASES, SCENARIO_CASES } from './refusals.js';

/**
 * The exact refusal (error class, field, reason) of every input in refusals.ts, as recorded in
 * messages.json when the validators moved onto src/validate. Against the copies it replaced, only
 * these differ: NaN / ±Infinity are shown as themselves where JSON text used to say "null"
 * (MMPP rates, trace timestamps, fleet numbers, arrivalRate beside a process), and METHOD_AUTO is
 * an alias of solver.method only (other enums used to accept it as their default).
 */
const on = (validate: (input: unknown) => unknown, cases: Array<[string, unknown]>): Array<[string, () => unknown]> =>
  cases.map(([name, input]) => [name, () => validate(input)]);
const GROUPS = {
  scenario: on(validateScenario, SCENARIO_CASES),
  arrivals: on(validateScenario, ARRIVAL_CASES),
  fleet: on(validateFleet, FLEET_CASES),
  request: REQUEST_CASES,
};

function outcome(f: () => unknown): string {
  try {
    f();
    return '(accepted)';
  } catch (e) {
    return e instanceof Error ? `${e.name} ${e.message}` : String(e);
  }
}

describe('refusal messages are pinned word for word', () => {
  const table = expected as Record<string, string>;
  const names: string[] = [];
  for (const [group, cases] of Object.entries(GROUPS)) {
    for (const [name, f] of cases) {
      const key = `${group}: ${name}`;
      names.push(key);
      it(key, () => expect(outcome(f)).toBe(table[key]));
    }
  }
  it('messages.json has exactly these cases', () => expect(Object.keys(table).sort()).toEqual([...names].sort()));
});
