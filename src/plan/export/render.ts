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

/** config.pbtxt (protobuf text format): model-level max_batch_size and the dynamic_batching block. */
function triton(s: BatchingSetting, c: RenderContext): string {
  const lines = [`# config.pbtxt — ${c.note}`, `max_batch_size: ${s.maxBatchSize}`, 'dynamic_batching {'];
  if (s.preferredBatchSizes.length > 0) lines.push(`  preferred_batch_size: [ ${s.preferredBatchSizes.join(', ')} ]`);
  lines.push(`  max_queue_delay_microseconds: ${micros(s.delay)}`, '}');
  lines.push('# one instance: one batch in service at a time, as modelled', 'instance_group [', '  {', '    count: 1', '    kind: KIND_GPU', '  }', ']');
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
      '@serve.deployment',
      `class ${cls[0].toUpperCase()}${cls.slice(1)}:`,
      `    @serve.batch(max_batch_size=${s.maxBatchSize}, batch_wait_timeout_s=${pythonFloat(s.delay)})`,
      '    async def __call__(self, requests):',
      '        ...  # run the model once on the whole batch; return one result per request',
    ].join('\n') + '\n'
  );
}

/** config.properties with the model's batching in the `models` JSON (maxBatchDelay in whole milliseconds). */
function torchServe(s: BatchingSetting, c: RenderContext): string {
  const ms = Math.round(s.delay * 1e3);
  const model = {
    [c.modelName]: {
      '1.0': { defaultVersion: true, marName: `${c.modelName}.mar`, minWorkers: 1, maxWorkers: 1, batchSize: s.maxBatchSize, maxBatchDelay: ms },
    },
  };
  return (
    [
      `# config.properties — ${c.note}`,
      '# one worker: one batch in service at a time, as modelled.',
      `# In model-config.yaml instead: batchSize: ${s.maxBatchSize}, maxBatchDelay: ${ms}, minWorkers: 1, maxWorkers: 1`,
      `models=${JSON.stringify(model)}`,
    ].join('\n') + '\n'
  );
}

/** A float literal Python reads back exactly (6 significant digits of seconds are whole µs here). */
function pythonFloat(v: number): string {
  const t = String(+v.toPrecision(6));
  return t.includes('.') || t.includes('e') ? t : `${t}.0`;
}
