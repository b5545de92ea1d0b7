import { ScenarioError } from '../../model/errors.js';
import type { BatchingSetting } from './targets.js';

/** Context a configuration file needs besides the tuned setting. */
export interface RenderContext {
  /** Model / deployment name (TorchServe's models map, Ray's class). */
  readonly modelName: string;
  /** TF Serving max_enqueued_batches: room for the queue's longest simulated backlog. */
  readonly maxEnqueuedBatches: number;
  /** One line saying where the numbers come from, written as a comment. */
  readonly note: string;
}

/** The setting in the target's own configuration syntax. */
export function renderSetting(s: BatchingSetting, c: RenderContext): string {
  switch (s.target) {
    case 'triton':
      return triton(s, c);
    case 'tf-serving':
      return tfServing(s, c);
    case 'ray-serve':
      return rayServe(s, c);
    case 'torchserve':
      return torchServe(s, c);
  }
}

const micros = (seconds: number): number => Math.round(seconds * 1e6);

/** Triton's instance_group as the export writes it: one instance on GPU 0. */
export const TRITON_INSTANCE_GROUP: readonly string[] = ['instance_group [', '  {', '    count: 1', '    kind: KIND_GPU', '    gpus: [ 0 ]', '  }', ']'];

/** config.pbtxt (protobuf text format): model-level max_batch_size and the dynamic_batching block. */
function triton(s: BatchingSetting, c: RenderContext): string {
  const lines = [`# config.pbtxt — ${c.note}`, `max_batch_size: ${s.maxBatchSize}`, 'dynamic_batching {'];
  if (s.preferredBatchSizes.length > 0) lines.push(`  preferred_batch_size: [ ${s.preferredBatchSizes.join(', ')} ]`);
  lines.push(`  max_queue_delay_microseconds: ${micros(s.delay)}`, '}');
  lines.push(
    '# one instance on one GPU: one batch in service at a time, as modelled (without `gpus`',
    '# Triton puts `count` instances on every visible GPU, all fed by this one queue)',
    ...TRITON_INSTANCE_GROUP,
  );
  return lines.join('\n') + '\n';
}

/** batching_parameters.txt for tensorflow_model_server --enable_batching (text proto of BatchingParameters). */
function tfServing(s: BatchingSetting, c: RenderContext): string {
  return (
    [
      `# batching_parameters.txt — ${c.note}`,
      '# tensorflow_model_server --enable_batching --batching_parameters_file=batching_parameters.txt',
      `max_batch_size { value: ${s.maxBatchSize} }`,
      `batch_timeout_micros { value: ${micros(s.delay)} }`,
      ...(s.allowedBatchSizes && s.allowedBatchSizes.length > 0
        ? ['# batches are padded up to the next allowed size (the restricted optimum assumes it)', `allowed_batch_sizes: [ ${s.allowedBatchSizes.join(', ')} ]`]
        : []),
      '# one batch thread: one batch in service at a time, as modelled',
      'num_batch_threads { value: 1 }',
      `max_enqueued_batches { value: ${c.maxEnqueuedBatches} }`,
    ].join('\n') + '\n'
  );
}

/** Python: the @serve.batch decorator on the deployment's handler. */
function rayServe(s: BatchingSetting, c: RenderContext): string {
  const cls = c.modelName.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1') || 'Model';
  return (
    [
      `# ${c.note}`,
      'from ray import serve',
      '',
      '',
      '@serve.deployment(',
      '    # one replica on one GPU, no autoscaling: one batch in service at a time, as modelled',
      '    num_replicas=1,',
      '    ray_actor_options={"num_gpus": 1},',
      `    # the requests one replica holds; Ray's default of 5 would cap every batch at 5`,
      `    max_ongoing_requests=${s.maxOngoingRequests ?? s.maxBatchSize},`,
      '    max_queued_requests=-1,  # the rest wait at the router, none rejected',
      ')',
      `class ${cls[0].toUpperCase()}${cls.slice(1)}:`,
      `    @serve.batch(max_batch_size=${s.maxBatchSize}, batch_wait_timeout_s=${pythonFloat(s.delay)}, max_concurrent_batches=1)`,
      '    async def __call__(self, requests):',
      '        # await the model once on the whole batch, without blocking the event loop',
      '        # (the next batch forms while this one runs); return one result per request',
      '        ...',
    ].join('\n') + '\n'
  );
}

/** config.properties with the model's batching in the `models` JSON (maxBatchDelay in whole milliseconds). */
function torchServe(s: BatchingSetting, c: RenderContext): string {
  const ms = Math.round(s.delay * 1e3);
  if (ms < 1) throw new ScenarioError('delay', `TorchServe's maxBatchDelay must be at least 1 ms: with 0, Model.pollBatch stops every batch at 2 jobs (got ${s.delay} s)`);
  const model = {
    [c.modelName]: {
      '1.0': { defaultVersion: true, marName: `${c.modelName}.mar`, minWorkers: 1, maxWorkers: 1, batchSize: s.maxBatchSize, maxBatchDelay: ms },
    },
  };
  return (
    [
      `# config.properties — ${c.note}`,
      '# One worker on one GPU: one batch in service at a time, as modelled (by default TorchServe',
      '# starts one worker per GPU, all taking from the model\'s one job queue).',
      '# maxBatchDelay is at least 1 ms: with 0, Model.pollBatch stops after 2 jobs, whatever waits.',
      `# In model-config.yaml instead: batchSize: ${s.maxBatchSize}, maxBatchDelay: ${ms}, minWorkers: 1, maxWorkers: 1`,
      `models=${JSON.stringify(model)}`,
    ].join('\n') + '\n'
  );
}

/**
 * Every knob the exported configuration sets because the simulated model assumes it (one
 * accelerator serving one batch at a time, nothing rejected), in words, for the report.
 */
export function assumptions(s: BatchingSetting, c: Pick<RenderContext, 'maxEnqueuedBatches'>): string[] {
  switch (s.target) {
    case 'triton':
      return [
        'instance_group count: 1, kind: KIND_GPU, gpus: [ 0 ]: one instance on one GPU (without gpus, Triton puts count instances on every visible GPU)',
        'no queue_policy: requests are neither rejected nor timed out',
      ];
    case 'tf-serving':
      return [
        ...(s.allowedBatchSizes && s.allowedBatchSizes.length > 0 ? [`allowed_batch_sizes: ${s.allowedBatchSizes.join(', ')}: each batch padded up to the next, paying its service time and power`] : []),
        'num_batch_threads: 1: one batch in service at a time',
        `max_enqueued_batches: ${c.maxEnqueuedBatches}: room for the longest simulated backlog, so nothing is rejected`,
      ];
    case 'ray-serve':
      return [
        'num_replicas: 1, ray_actor_options num_gpus: 1: one replica on one GPU, no autoscaling',
        `max_ongoing_requests: ${s.maxOngoingRequests ?? s.maxBatchSize} (Ray's default of 5 caps every batch at 5); max_queued_requests: -1 (none rejected)`,
        'max_concurrent_batches: 1: one batch in service at a time; the handler awaits the model without blocking the event loop',
      ];
    case 'torchserve':
      return [
        'minWorkers: 1, maxWorkers: 1: one worker on one GPU (by default one worker per GPU, sharing one job queue)',
        `maxBatchDelay: ${Math.round(s.delay * 1e3)} ms, at least 1 (0 stops every batch at 2 jobs)`,
      ];
  }
}

/** A float literal Python reads back exactly (6 significant digits of seconds are whole µs here). */
export function pythonFloat(v: number): string {
  const t = String(+v.toPrecision(6));
  return t.includes('.') || t.includes('e') ? t : `${t}.0`;
}
