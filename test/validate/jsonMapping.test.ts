import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateFleet, type FleetParams } from '../../src/fleet/scenario.js';
import { validateClassesScenario } from '../../src/model/classes/validate.js';
import { validateScenario } from '../../src/model/validate.js';
import { expandBatch } from '../../src/service/batch/expand.js';
import { solveBatchJsonNames } from '../../src/service/convert/jsonNames.js';
import { pythonForTests, runPythonJson } from '../helpers/python.js';

/**
 * Every example file through the proto's own JSON mapping (protobuf's json_format, in Python,
 * over the descriptor set the server serves): parsed into its message type and printed back with
 * JSON names or proto field names, with or without the fields at their defaults. Each of the
 * four reads as the same validated input as the file itself.
 */
const py = pythonForTests();
const path = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));

/** The fleet without the service-time and power JSON it keeps as given (spelling differs, the validated pairs may not). */
function fleetValues(f: FleetParams): unknown {
  return { ...f, kinds: f.kinds.map(({ serviceSpecs: _s, powerSpec: _p, ...k }) => k) };
}

/** Each example's message type and what validating it gives (as the CLI reads the file). */
const EXAMPLES: Record<string, { type: string; read: (json: unknown) => unknown }> = {
  'scenario.json': { type: 'batchwise.v1.Scenario', read: validateScenario },
  'fleet.json': { type: 'batchwise.v1.FleetScenario', read: (j) => fleetValues(validateFleet(j)) },
  'two-classes.json': { type: 'batchwise.v1.Scenario', read: validateClassesScenario },
  'sweep.json': {
    type: 'batchwise.v1.SolveBatchRequest',
    read: (j) => expandBatch(solveBatchJsonNames(j), Number.MAX_SAFE_INTEGER).map((e) => ({ ...e, scenario: validateScenario(e.scenario) })),
  },
};

/** Examples with no message on the wire yet, and why: each still has to validate. */
const CLI_ONLY: Record<string, { why: string; read: (json: unknown) => unknown }> = {};

describe(`examples/ through the proto3 JSON mapping${py.skip}`, () => {
  let mapped: Record<string, Record<string, unknown>>;
  beforeAll(async () => {
    if (!py.python) return;
    const pairs = Object.entries(EXAMPLES).map(([file, e]) => `${path(`examples/${file}`)}=${e.type}`);
    const out = (await runPythonJson(py.python, path('test/python/json_mapping.py'), [path('proto/descriptors.binpb'), ...pairs])) as Record<string, Record<string, unknown>>;
    mapped = Object.fromEntries(Object.keys(EXAMPLES).map((file) => [file, out[path(`examples/${file}`)]]));
  });

  it('covers every JSON file in examples/', () => {
    expect(readdirSync(path('examples')).filter((f) => f.endsWith('.json')).sort()).toEqual([...Object.keys(EXAMPLES), ...Object.keys(CLI_ONLY)].sort());
    for (const [file, { read }] of Object.entries(CLI_ONLY)) expect(() => read(JSON.parse(readFileSync(path(`examples/${file}`), 'utf8'))), file).not.toThrow();
  });

  for (const [file, { read }] of Object.entries(EXAMPLES)) {
    it.skipIf(!py.python)(`${file}: JSON names, proto names, with and without defaults, validate the same as the file`, () => {
      const original = read(JSON.parse(readFileSync(path(`examples/${file}`), 'utf8')));
      const forms = mapped[file];
      expect(Object.keys(forms).sort()).toEqual(['json', 'json+defaults', 'proto', 'proto+defaults']);
      for (const [form, json] of Object.entries(forms)) expect(read(json), `${file} as ${form}`).toEqual(original);
      // The proto-name forms really are spelled differently.
      expect(JSON.stringify(forms.proto)).toMatch(/"[a-z]+_[a-z_]+":/);
    });
  }
});
