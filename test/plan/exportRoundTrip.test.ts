import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateConfig } from '../../src/plan/export/evaluateConfig.js';
import { readConfig } from '../../src/plan/export/readConfig.js';
import { renderSetting } from '../../src/plan/export/render.js';
import { TARGETS, type BatchingSetting } from '../../src/plan/export/targets.js';
import { evaluateScenarioPolicy } from '../../src/solve/evaluateScenario.js';
import { runCli } from '../helpers/cli.js';
import { specScenario } from '../helpers/scenarios.js';

const ctx = { modelName: 'resnet', maxEnqueuedBatches: 10, note: 'test' };
const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

describe('an exported configuration reads back as the batcher it was tuned on', () => {
  const settings: BatchingSetting[] = [
    { target: 'triton', maxBatchSize: 32, delay: 0.006957, preferredBatchSizes: range(11, 32) },
    { target: 'triton', maxBatchSize: 32, delay: 0.000921, preferredBatchSizes: [] },
    { target: 'tf-serving', maxBatchSize: 32, delay: 0.002384, preferredBatchSizes: [] },
    { target: 'ray-serve', maxBatchSize: 32, delay: 0.004462, preferredBatchSizes: [], maxOngoingRequests: 64 },
    { target: 'torchserve', maxBatchSize: 32, delay: 0.003, preferredBatchSizes: [] },
  ];
  for (const s of settings) {
    it(`${s.target} ${TARGETS[s.target].simPolicy(s).name}`, () => {
      const back = readConfig(s.target, renderSetting(s, ctx), 'config', 32);
      expect(back.policy.name).toBe(TARGETS[s.target].simPolicy(s).name);
      expect(back.notes).toEqual([]);
    });
  }
});

describe("a user's configuration: the systems' defaults, and what departs from the model", () => {
  it('Triton config.pbtxt with the rest of a model config around the batching', () => {
    const pbtxt = `name: "resnet"  # a comment
platform: "tensorrt_plan"
max_batch_size: 16
input [ { name: "input" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
output [ { name: "logits", data_type: TYPE_FP32, dims: [ 1000 ] } ]
dynamic_batching { preferred_batch_size: 4 preferred_batch_size: 8, max_queue_delay_microseconds: 500 }
instance_group [ { count: 2 kind: KIND_GPU } ]
parameters { key: "x" value: { string_value: "a \\"quoted\\" }" } }
`;
    const r = readConfig('triton', pbtxt, 'config.pbtxt', 32);
    expect(r.policy.name).toBe('triton:max_queue_delay_microseconds=500,preferred_batch_size=4|8,max_batch_size=16');
    expect(r.notes).toEqual(['instance_group with count 2 on every visible GPU: simulated as one instance']);
    expect(readConfig('triton', 'max_batch_size: 8\n', 'c', 32).notes).toEqual(['no dynamic_batching: each request runs alone']);
    expect(() => readConfig('triton', 'max_batch_size: 64 dynamic_batching {}', 'c', 32)).toThrow(/c\.max_batch_size: must be an integer in 1\.\.32/);
    expect(() => readConfig('triton', 'dynamic_batching { max_queue_delay_microseconds: 5', 'c', 32)).toThrow(/c: line 1: missing "}"/);
  });

  it('TF Serving batching_parameters.txt with allowed_batch_sizes (padding)', () => {
    const r = readConfig('tf-serving', 'max_batch_size { value: 32 }\nbatch_timeout_micros { value: 1000 }\nallowed_batch_sizes: 8\nallowed_batch_sizes: 16\nallowed_batch_sizes: 32\n', 'b', 32);
    expect(r.policy.name).toBe('tf-serving:batch_timeout_micros=1000,max_batch_size=32,allowed_batch_sizes=8|16|32');
    expect(r.policy.padding![9]).toBe(16);
    expect(r.notes).toEqual(['num_batch_threads unset: simulated as one batch thread']);
  });

  it('TorchServe config.properties and model-config.yaml, with their defaults', () => {
    const props = 'inference_address=http://0.0.0.0:8080\nmodels={"resnet":{"1.0":{"defaultVersion":true,"marName":"resnet.mar","minWorkers":1,"maxWorkers":1,"batchSize":8}}}\n';
    expect(readConfig('torchserve', props, 'config.properties', 32).policy.name).toBe('torchserve:maxBatchDelay=100ms,batchSize=8');
    const zero = readConfig('torchserve', props.replace('"batchSize":8', '"batchSize":8,"maxBatchDelay":0'), 'config.properties', 32);
    expect(zero.notes).toEqual(['maxBatchDelay 0: Model.pollBatch stops every batch at 2 jobs']);
    // In model-config.yaml a 0 is "unset" (ModelManager): 100 ms.
    const yaml = readConfig('torchserve', 'minWorkers: 1\nmaxWorkers: 2\nbatchSize: 4\nmaxBatchDelay: 0\nresponseTimeout: 120\n', 'model-config.yaml', 32);
    expect(yaml.policy.name).toBe('torchserve:maxBatchDelay=100ms,batchSize=4');
    expect(yaml.notes).toEqual(['maxBatchDelay 0 in model-config.yaml means unset: TorchServe uses 100 ms', 'maxWorkers 2: simulated as one worker']);
  });

  it('Ray Serve options, flat JSON or a Serve config with the batch parameters in user_config', () => {
    expect(readConfig('ray-serve', '{"max_batch_size": 32, "batch_wait_timeout_s": 0.004}', 'ray.json', 32).policy.name).toBe(
      'ray-serve:batch_wait_timeout_s=0.004,max_batch_size=32,max_ongoing_requests=5',
    );
    const serve = `applications:
  - name: app
    import_path: app:model
    deployments:
      - name: Model
        num_replicas: 2
        max_ongoing_requests: 64
        user_config: { max_batch_size: 32, batch_wait_timeout_s: 0.002 }
`;
    const r = readConfig('ray-serve', serve, 'serve.yaml', 32);
    expect(r.policy.name).toBe('ray-serve:batch_wait_timeout_s=0.002,max_batch_size=32,max_ongoing_requests=64');
    expect(r.notes).toEqual(['num_replicas 2: simulated as one replica']);
    expect(readConfig('ray-serve', '{}', 'r', 32).notes).toEqual(['max_ongoing_requests 5 < max_batch_size 10: no batch exceeds 5']);
  });
});

describe('evaluate --from-config: a configuration against the optimum in simulation', () => {
  const scenario = specScenario(4000, 1e-3);

  it('the export’s Triton setting: the paired gap holds the exact gap of the control limit it runs', async () => {
    const pbtxt = renderSetting({ target: 'triton', maxBatchSize: 32, delay: 0.006957, preferredBatchSizes: range(11, 32) }, ctx);
    const r = await evaluateConfig(scenario, 'triton', pbtxt, 'config.pbtxt', { requests: 200_000, seed: 3 });
    // With every size from 11 up preferred and a delay that (almost) never fires, Triton is control-limit:11.
    const exactGap = evaluateScenarioPolicy(scenario, 'control-limit:11').averageCost - r.optimal.averageCost;
    expect(exactGap).toBeGreaterThan(0);
    expect(Math.abs(r.gap.difference - exactGap)).toBeLessThanOrEqual(r.gap.halfWidth!);
    expect(r.exported.requests).toBeGreaterThanOrEqual(200_000);
  });

  it('refuses the traps as unstable, naming the rate; the CLI says so in one line', async () => {
    const props = 'models={"m":{"1.0":{"batchSize":32,"maxBatchDelay":0,"minWorkers":1,"maxWorkers":1}}}\n';
    await expect(evaluateConfig(scenario, 'torchserve', props, 'config.properties', { requests: 10_000 })).rejects.toThrow(/serves batches of 2, which clear at most 2\/l\(2\) = 919\.54/);
    const dir = mkdtempSync(join(tmpdir(), 'batchwise-roundtrip-'));
    const scen = join(dir, 's.json');
    const ray = join(dir, 'ray.json');
    writeFileSync(scen, JSON.stringify(scenario));
    writeFileSync(ray, JSON.stringify({ max_batch_size: 32, batch_wait_timeout_s: 0.004 }));
    const r = await runCli('evaluate', scen, '--from-config', ray, '--to', 'ray-serve', '--requests', '10000');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/max_ongoing_requests=5 is unstable: for long queues it serves batches of 5, which clear at most 5\/l\(5\) = 1918\.35/);
  });

  it('simulate --from-config runs the same round trip as evaluate --from-config, and refuses --policy or --trace beside it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'batchwise-roundtrip-'));
    const scen = join(dir, 's.json');
    const conf = join(dir, 'config.pbtxt');
    writeFileSync(scen, JSON.stringify(scenario));
    writeFileSync(conf, renderSetting({ target: 'triton', maxBatchSize: 32, delay: 0.006957, preferredBatchSizes: range(11, 32) }, ctx));
    const args = [scen, '--from-config', conf, '--to', 'triton', '--requests', '20000', '--seed', '5', '--json'];
    const sim = await runCli('simulate', ...args);
    const ev = await runCli('evaluate', ...args);
    expect(sim.code).toBe(0);
    expect(JSON.parse(sim.out)).toEqual(JSON.parse(ev.out));
    expect(JSON.parse(sim.out).exported.requests).toBeGreaterThanOrEqual(20_000);
    const both = await runCli('simulate', ...args, '--policy', 'greedy');
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--policy: give either --policy or --from-config, not both/);
  });
});
