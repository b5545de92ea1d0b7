import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportPolicy } from '../../src/plan/export/exportPolicy.js';
import { mergeConfig, type MergeContext } from '../../src/plan/export/merge.js';
import { readConfig } from '../../src/plan/export/readConfig.js';
import { TARGETS, type BatchingSetting } from '../../src/plan/export/targets.js';
import { field, intField, parseTextProto } from '../../src/plan/export/textProto.js';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../helpers/cli.js';
import { specScenario } from '../helpers/scenarios.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'export');
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
const ctx: MergeContext = { maxEnqueuedBatches: 12 };

/** Every line of `before` not matched by `batching` is in `after` (as many times). */
function expectKept(before: string, after: string, batching: RegExp): void {
  const count = (lines: string[]) => lines.reduce((m, l) => m.set(l, (m.get(l) ?? 0) + 1), new Map<string, number>());
  const have = count(after.split('\n'));
  const lost = [...count(before.split('\n').filter((l) => !batching.test(l)))].filter(([l, n]) => (have.get(l) ?? 0) < n).map(([l]) => l);
  expect(lost).toEqual([]);
}

/** Merged once, merged twice: the same text. */
function mergeTwice(s: BatchingSetting, text: string, file: string, c: MergeContext = ctx) {
  const once = mergeConfig(s, text, file, c);
  expect(mergeConfig(s, once.text, file, c).text).toBe(once.text);
  return once;
}

describe('export --merge: Triton config.pbtxt', () => {
  const text = fixture('config.pbtxt');
  const cases: BatchingSetting[] = [
    { target: 'triton', maxBatchSize: 32, delay: 0.004, preferredBatchSizes: range(11, 32) },
    { target: 'triton', maxBatchSize: 32, delay: 0.000921, preferredBatchSizes: [] },
  ];
  for (const s of cases) {
    it(`${TARGETS.triton.simPolicy(s).name}`, () => {
      const m = mergeTwice(s, text, 'config.pbtxt');
      expectKept(text, m.text, /max_batch_size|preferred_batch_size|max_queue_delay_microseconds|count: 2/);
      const back = readConfig('triton', m.text, 'config.pbtxt', 32);
      expect(back.policy.name).toBe(TARGETS.triton.simPolicy(s).name);
      expect(back.notes).toEqual([]);
      const msg = parseTextProto(m.text, 'config.pbtxt');
      expect(field(msg, 'name')).toBe('resnet50');
      expect(msg.get('parameters')).toHaveLength(2);
      expect(msg.get('instance_group')).toHaveLength(1);
      expect(m.notes).toContain('changed: max_batch_size 16 → 32');
      expect(m.notes).toContain(`changed: dynamic_batching.max_queue_delay_microseconds 2000 → ${Math.round(s.delay * 1e6)}`);
      expect(m.notes).toContain('changed: instance_group [ { count: 2 kind: KIND_GPU } ] → [ { count: 1 kind: KIND_GPU gpus: [ 0 ] } ]');
      expect(m.notes.some((n) => n.startsWith('kept: dynamic_batching.priority_levels: 2 (departs from the model'))).toBe(true);
    });
  }

  it('inserts what is absent: max_batch_size after name/backend, dynamic_batching, instance_group', () => {
    const bare = 'name: "m"\nbackend: "python"\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n';
    const s: BatchingSetting = { target: 'triton', maxBatchSize: 8, delay: 0.001, preferredBatchSizes: [] };
    const m = mergeTwice(s, bare, 'config.pbtxt');
    expect(m.text.startsWith('name: "m"\nbackend: "python"\nmax_batch_size: 8\ndynamic_batching {\n  max_queue_delay_microseconds: 1000\n}\ninstance_group [\n')).toBe(true);
    expect(readConfig('triton', m.text, 'c', 8).policy.name).toBe(TARGETS.triton.simPolicy(s).name);
    // A one-line block keeps its other fields and takes the delay before its brace.
    expect(mergeTwice(s, 'dynamic_batching {}', 'c').text).toMatch(/^max_batch_size: 8\ndynamic_batching \{ max_queue_delay_microseconds: 1000 \}\ninstance_group/);
    const one = mergeTwice(s, 'max_batch_size: 4 dynamic_batching { preserve_ordering: true }\n', 'c');
    expect(one.text).toMatch(/^max_batch_size: 8 dynamic_batching \{ preserve_ordering: true max_queue_delay_microseconds: 1000 \}\n/);
  });

  it('refuses mismatched and unreadable files, naming the file and line', () => {
    const s: BatchingSetting = { target: 'triton', maxBatchSize: 32, delay: 0.001, preferredBatchSizes: [] };
    expect(() => mergeConfig(s, fixture('batching_parameters.txt'), 'batching_parameters.txt', ctx)).toThrow(/batching_parameters\.txt: line 4: batch_timeout_micros is a TF Serving/);
    expect(() => mergeConfig(s, 'name: "m"\ndynamic_batching {\n  max_queue_delay_microseconds: 5\n', 'c.pbtxt', ctx)).toThrow(/c\.pbtxt: line 3: missing "}"/);
    expect(() => mergeConfig(s, 'name: "m"\nsequence_batching { }\n', 'c.pbtxt', ctx)).toThrow(/c\.pbtxt: line 2: sequence_batching is set/);
  });
});

describe('export --merge: TF Serving batching_parameters.txt', () => {
  const text = fixture('batching_parameters.txt');
  const s: BatchingSetting = { target: 'tf-serving', maxBatchSize: 32, delay: 0.0025, preferredBatchSizes: [] };

  it('sets the four fields, keeps the rest, says allowed_batch_sizes was assumed away', () => {
    const m = mergeTwice(s, text, 'batching_parameters.txt');
    expectKept(text, m.text, /max_batch_size|batch_timeout_micros|num_batch_threads|max_enqueued_batches/);
    const msg = parseTextProto(m.text, 'b');
    expect([intField(msg, 'max_batch_size', 'b'), intField(msg, 'batch_timeout_micros', 'b'), intField(msg, 'num_batch_threads', 'b'), intField(msg, 'max_enqueued_batches', 'b')]).toEqual([32, 2500, 1, 12]);
    const back = readConfig('tf-serving', m.text, 'b', 32);
    expect(back.policy.name).toBe('tf-serving:batch_timeout_micros=2500,max_batch_size=32,allowed_batch_sizes=8|16|32');
    expect(back.notes).toEqual([]);
    expect(m.notes).toEqual([
      'unchanged: max_batch_size 32',
      'changed: batch_timeout_micros 5000 → 2500',
      'changed: num_batch_threads 8 → 1',
      'changed: max_enqueued_batches 100 → 12',
      'kept: allowed_batch_sizes [ 8, 16, 32 ] (the export\'s model assumed none: batches are padded up to the next allowed size)',
    ]);
  });

  it('adds absent fields; refuses a Triton config', () => {
    const m = mergeTwice(s, '# mine\npad_variable_length_inputs: true\n', 'b');
    expect(m.text).toBe('# mine\npad_variable_length_inputs: true\nmax_batch_size { value: 32 }\nbatch_timeout_micros { value: 2500 }\nnum_batch_threads { value: 1 }\nmax_enqueued_batches { value: 12 }\n');
    expect(() => mergeConfig(s, fixture('config.pbtxt'), 'config.pbtxt', ctx)).toThrow(/config\.pbtxt: line 4: backend is a Triton model-config field/);
  });
});

describe('export --merge: TorchServe', () => {
  const s: BatchingSetting = { target: 'torchserve', maxBatchSize: 32, delay: 0.003, preferredBatchSizes: [] };

  it('config.properties: the named model in the models JSON, other models and properties kept', () => {
    const text = fixture('config.properties');
    const m = mergeTwice(s, text, 'config.properties', { ...ctx, modelName: 'resnet' });
    expectKept(text, m.text, /^models=/);
    expect(readConfig('torchserve', m.text, 'config.properties', 32, 'resnet').policy.name).toBe(TARGETS.torchserve.simPolicy(s).name);
    const models = JSON.parse(m.text.split('\n').find((l) => l.startsWith('models='))!.slice(7)) as Record<string, Record<string, unknown>>;
    const before = JSON.parse(text.split('\n').find((l) => l.startsWith('models='))!.slice(7)) as Record<string, Record<string, unknown>>;
    expect(models.bert).toEqual(before.bert);
    expect(models.resnet['1.0']).toEqual({ defaultVersion: true, marName: 'resnet.mar', minWorkers: 1, maxWorkers: 1, batchSize: 32, maxBatchDelay: 3 });
    expect(m.notes).toContain('changed: models.resnet.1.0.batchSize 8 → 32');
    const crlf = mergeTwice(s, text.replace(/\n/g, '\r\n'), 'config.properties', { ...ctx, modelName: 'resnet' });
    expect(crlf.text).toBe(m.text.replace(/\n/g, '\r\n'));
    expect(() => mergeConfig(s, text, 'config.properties', ctx)).toThrow(/config\.properties: line 9: models= holds bert, resnet: name the one to merge into with --model-name/);
    expect(() => mergeConfig(s, text.replace('"bert":{', '"bert":{{'), 'config.properties', ctx)).toThrow(/config\.properties: line 9: models= is not JSON/);
  });

  it('model-config.yaml: the four keys set in place, comments and other keys kept', () => {
    const text = fixture('model-config.yaml');
    const m = mergeTwice(s, text, 'model-config.yaml');
    expectKept(text, m.text, /^(minWorkers|maxWorkers|batchSize|maxBatchDelay):/);
    expect(m.text).toContain('minWorkers: 1 # start with two workers\n');
    expect(m.text).toContain('maxBatchDelay: 3 # ms\n');
    expect(readConfig('torchserve', m.text, 'model-config.yaml', 32).policy.name).toBe(TARGETS.torchserve.simPolicy(s).name);
    expect(m.notes).toEqual(['changed: batchSize 4 → 32', 'changed: maxBatchDelay 200 → 3', 'changed: minWorkers 2 → 1', 'changed: maxWorkers 4 → 1']);
    expect(() => mergeConfig(s, 'batchSize: [1\n', 'model-config.yaml', ctx)).toThrow(/model-config\.yaml: line \d+:/);
    expect(mergeTwice(s, '# empty\n', 'model-config.yaml').text).toBe('# empty\nbatchSize: 32\nmaxBatchDelay: 3\nminWorkers: 1\nmaxWorkers: 1\n');
  });
});

describe('export --merge: Ray Serve config YAML', () => {
  const text = fixture('serve_config.yaml');
  const s: BatchingSetting = { target: 'ray-serve', maxBatchSize: 32, delay: 0.004462, preferredBatchSizes: [], maxOngoingRequests: 64 };

  it('the named deployment: options set, @serve.batch arguments in user_config, autoscaling removed', () => {
    const m = mergeTwice(s, text, 'serve_config.yaml', { ...ctx, modelName: 'Summarizer' });
    expectKept(text, m.text, /max_ongoing_requests|autoscaling_config|min_replicas|max_replicas|max_batch_size|batch_wait_timeout_s/);
    const back = readConfig('ray-serve', m.text, 'serve_config.yaml', 32, 'Summarizer');
    expect(back.policy.name).toBe(TARGETS['ray-serve'].simPolicy(s).name);
    expect(back.notes).toEqual([]);
    const dep = (parseYaml(m.text) as { applications: { deployments: Record<string, unknown>[] }[] }).applications[0].deployments[1];
    expect(dep).toMatchObject({ name: 'Summarizer', max_ongoing_requests: 64, num_replicas: 1, max_queued_requests: -1, ray_actor_options: { num_gpus: 1 } });
    expect(dep.autoscaling_config).toBeUndefined();
    expect(m.text).toContain('    max_ongoing_requests: 64 # Ray\'s default\n');
    expect(m.notes).toContain('note: the @serve.batch arguments live in code: @serve.batch(max_batch_size=32, batch_wait_timeout_s=0.004462, max_concurrent_batches=1)');
  });

  it('the other deployment: existing ray_actor_options updated; one of two needs a name', () => {
    const m = mergeTwice(s, text, 'serve_config.yaml', { ...ctx, modelName: 'Translator' });
    expectKept(text, m.text, /num_replicas|num_gpus/);
    expect(m.notes).toContain('changed: Translator.ray_actor_options.num_gpus 0.5 → 1');
    expect(m.notes).toContain('changed: Translator.num_replicas 2 → 1');
    expect(m.notes).toContain('added: Translator.max_queued_requests -1');
    expect(() => mergeConfig(s, text, 'serve_config.yaml', ctx)).toThrow(/serve_config\.yaml: line 1: deployments Translator, Summarizer: name the one/);
    expect(() => mergeConfig(s, fixture('model-config.yaml'), 'model-config.yaml', ctx)).toThrow(/model-config\.yaml: line 1: no applications/);
  });
});

describe('export --merge end to end (cheap simulations)', () => {
  const scenario = specScenario(4000, 1e-3);

  it('exportPolicy with options.merge, and the CLI writing the merged file to stdout', async () => {
    const cheap = { requests: 5_000, tuningRequests: 2_000 };
    const text = fixture('config.pbtxt');
    const r = await exportPolicy(scenario, 'triton', { ...cheap, merge: { text, file: 'config.pbtxt' } });
    expect(readConfig('triton', r.merged!.text, 'config.pbtxt', 32).policy.name).toBe(TARGETS.triton.simPolicy(r.setting).name);
    const dir = mkdtempSync(join(tmpdir(), 'batchwise-merge-'));
    writeFileSync(join(dir, 's.json'), JSON.stringify(scenario));
    const cli = await runCli('export', join(dir, 's.json'), '--to', 'tf-serving', '--merge', join(FIXTURES, 'batching_parameters.txt'), '--requests', '5000', '--tuning-requests', '2000');
    expect(cli.code).toBe(0);
    expect(cli.out).toContain('pad_variable_length_inputs: true');
    expect(cli.err).toMatch(/merged into .*batching_parameters\.txt:\n {2}unchanged: max_batch_size 32\n {2}changed: batch_timeout_micros 5000 → \d+/);
    const missing = await runCli('export', join(dir, 's.json'), '--to', 'triton', '--merge', join(dir, 'nope.pbtxt'));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/nope\.pbtxt: cannot be read \(ENOENT\)/);
  });
});
