import { yaml } from './yamlLib.js';
import { ScenarioError } from '../../model/errors.js';
import { RAY_DEFAULT_MAX_ONGOING_REQUESTS, RayServePolicy } from '../../sim/policies/rayServe.js';
import { TfServingPolicy } from '../../sim/policies/tfServing.js';
import { TorchServePolicy } from '../../sim/policies/torchServe.js';
import { TritonPolicy } from '../../sim/policies/triton.js';
import type { SimPolicy } from '../../sim/policies/types.js';
import type { ExportTarget } from './targets.js';
import { intField, intList, messageField, parseTextProto, type TextMessage } from './textProto.js';

/**
 * A serving system's own configuration file read back into the batcher it configures, with the
 * systems' defaults where a field is absent: Triton config.pbtxt, TF Serving
 * batching_parameters.txt, TorchServe config.properties (the `models` JSON) or model-config.yaml,
 * Ray Serve deployment options as JSON or YAML (flat, or a Serve config's first deployment; the
 * @serve.batch arguments beside them or in its user_config), or the deployment's Python source
 * (the numeric arguments of its @serve.deployment and @serve.batch decorators).
 */
export interface ConfigSetting {
  readonly policy: SimPolicy;
  /** Where the configuration departs from the modelled single server, in words. */
  readonly notes: string[];
  /**
   * What the file imposes on every policy the target could run (docs/model.md §11.1): TF Serving's
   * allowed_batch_sizes (padded), a Ray max_ongoing_requests below the scenario's B (a cap on
   * requests held). evaluateConfig solves the optimum under it.
   */
  readonly restrictions?: ConfigRestrictions;
}

export interface ConfigRestrictions {
  /** Ascending, the last the scenario's B; batches padded up to them (PAD_TO_ALLOWED). */
  readonly allowedBatchSizes?: readonly number[];
  /** A cap below the scenario's B. */
  readonly maxOngoingRequests?: number;
}

/** `name` picks the model (TorchServe's models map) or deployment (a Ray Serve config) where the file holds several; default the first. */
export function readConfig(target: ExportTarget, text: string, file: string, B: number, name?: string): ConfigSetting {
  switch (target) {
    case 'triton':
      return triton(parseTextProto(text, file), file, B);
    case 'tf-serving':
      return tfServing(parseTextProto(text, file), file, B);
    case 'torchserve':
      return torchServe(text, file, B, name);
    case 'ray-serve':
      return rayServe(text, file, B, name);
  }
}

function batchSize(v: number | undefined, name: string, file: string, B: number, fallback: number): number {
  const n = v ?? fallback;
  if (!(Number.isInteger(n) && n >= 1 && n <= B)) throw new ScenarioError(`${file}.${name}`, `must be an integer in 1..${B} (the scenario's max batch size), got ${n}`);
  return n;
}

function triton(m: TextMessage, file: string, B: number): ConfigSetting {
  const max = batchSize(intField(m, 'max_batch_size', file), 'max_batch_size', file, B, 0);
  const notes: string[] = [];
  for (const g of m.get('instance_group') ?? []) {
    if (typeof g === 'string') continue;
    const count = intField(g, 'count', file) ?? 1;
    const gpus = intList(g, 'gpus', file);
    if (count !== 1 || gpus.length !== 1) notes.push(`instance_group with count ${count} on ${gpus.length === 0 ? 'every visible GPU' : `GPUs ${gpus.join(', ')}`}: simulated as one instance`);
  }
  const db = messageField(m, 'dynamic_batching', file);
  if (db === undefined) {
    notes.push('no dynamic_batching: each request runs alone');
    return { policy: new TritonPolicy({ maxQueueDelay: 0, preferredBatchSizes: [], maxBatchSize: 1 }), notes };
  }
  const preferred = intList(db, 'preferred_batch_size', file);
  for (const p of preferred) batchSize(p, 'dynamic_batching.preferred_batch_size', file, max, 1);
  const delay = (intField(db, 'max_queue_delay_microseconds', file) ?? 0) / 1e6;
  return { policy: new TritonPolicy({ maxQueueDelay: delay, preferredBatchSizes: preferred, maxBatchSize: max }), notes };
}

function tfServing(m: TextMessage, file: string, B: number): ConfigSetting {
  const max = batchSize(intField(m, 'max_batch_size', file), 'max_batch_size', file, B, 0);
  const notes: string[] = [];
  const threads = intField(m, 'num_batch_threads', file);
  if (threads !== 1) notes.push(`num_batch_threads ${threads ?? 'unset'}: simulated as one batch thread`);
  const allowed = intList(m, 'allowed_batch_sizes', file);
  // TF Serving refuses a list that is not strictly increasing ("allowed_batch_sizes entries must be monotonically increasing").
  allowed.forEach((a, i) => {
    if (!(Number.isInteger(a) && a >= 1 && (i === 0 || a > allowed[i - 1]))) throw new ScenarioError(`${file}.allowed_batch_sizes[${i}]`, `must be a size ≥ 1 above the one before it (TF Serving requires them increasing), got ${a}`);
  });
  if (allowed.length > 0 && allowed[allowed.length - 1] !== max) throw new ScenarioError(`${file}.allowed_batch_sizes`, `the last entry must equal max_batch_size = ${max}`);
  const timeout = (intField(m, 'batch_timeout_micros', file) ?? 0) / 1e6;
  const policy = new TfServingPolicy({ batchTimeout: timeout, maxBatchSize: max, allowedBatchSizes: allowed });
  if (allowed.length === 0) return { policy, notes };
  // A restriction's largest allowed size is the scenario's B (restriction.ts): with a smaller
  // max_batch_size the sizes are a choice of this file beside the smaller max, not the target's restriction.
  if (max < B) {
    notes.push(`allowed_batch_sizes up to max_batch_size ${max} < the scenario's maxBatchSize ${B}: the optimum is the unrestricted one (set maxBatchSize ${max} in the scenario for the restricted optimum)`);
    return { policy, notes };
  }
  return { policy, notes, restrictions: { allowedBatchSizes: allowed } };
}

/** TorchServe's defaults (ModelManager, RegisterModelRequest): batchSize 1, maxBatchDelay 100 ms. */
function torchServe(text: string, file: string, B: number, name: string | undefined): ConfigSetting {
  let entry: Record<string, unknown>;
  let fromYaml = false;
  const line = text.split(/\r?\n/).find((l) => /^\s*models\s*[=:]/.test(l));
  if (line !== undefined) {
    // config.properties: the models JSON, first model, its default version (else the first).
    const models = jsonOf(line.replace(/^\s*models\s*[=:]\s*/, ''), `${file}.models`) as Record<string, Record<string, Record<string, unknown>>>;
    const versions = (name === undefined ? undefined : models[name]) ?? Object.values(models)[0] ?? {};
    entry = Object.values(versions).find((v) => v.defaultVersion === true) ?? Object.values(versions)[0] ?? {};
  } else {
    entry = (yaml().parse(text) ?? {}) as Record<string, unknown>;
    fromYaml = true;
  }
  const int = (k: string): number | undefined => {
    const v = entry[k];
    if (v === undefined) return undefined;
    if (!Number.isInteger(v)) throw new ScenarioError(`${file}.${k}`, `must be an integer, got ${JSON.stringify(v)}`);
    return v as number;
  };
  const notes: string[] = [];
  let delay = int('maxBatchDelay') ?? 100;
  if (fromYaml && delay <= 0) {
    notes.push('maxBatchDelay 0 in model-config.yaml means unset: TorchServe uses 100 ms');
    delay = 100;
  }
  if (delay < 0) throw new ScenarioError(`${file}.maxBatchDelay`, `must be ≥ 0, got ${delay}`);
  if (delay === 0) notes.push('maxBatchDelay 0: Model.pollBatch stops every batch at 2 jobs');
  const workers = int('maxWorkers');
  if (workers !== 1) notes.push(`maxWorkers ${workers ?? 'unset (one per GPU)'}: simulated as one worker`);
  return { policy: new TorchServePolicy({ maxBatchDelayMs: delay, batchSize: batchSize(int('batchSize'), 'batchSize', file, B, 1) }), notes };
}

/** Ray's defaults: @serve.batch max_batch_size 10, batch_wait_timeout_s 0.01; max_ongoing_requests 5. */
function rayServe(text: string, file: string, B: number, name: string | undefined): ConfigSetting {
  let o = (/@serve\.(batch|deployment)\s*\(/.test(text) ? pythonKwargs(text) : (yaml().parse(text) ?? {})) as Record<string, unknown>;
  const apps = o.applications as { deployments?: Record<string, unknown>[] }[] | undefined;
  if (Array.isArray(apps)) o = apps.flatMap((a) => a.deployments ?? []).find((d) => name !== undefined && d.name === name) ?? apps[0]?.deployments?.[0] ?? {};
  const user = (o.user_config ?? {}) as Record<string, unknown>;
  const get = (k: string): unknown => o[k] ?? user[k];
  const num = (k: string, fallback: number): number => {
    const v = get(k) ?? fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new ScenarioError(`${file}.${k}`, `must be a number ≥ 0, got ${JSON.stringify(v)}`);
    return v;
  };
  const notes: string[] = [];
  const replicas = get('num_replicas');
  if (replicas !== undefined && replicas !== 1) notes.push(`num_replicas ${JSON.stringify(replicas)}: simulated as one replica`);
  if (get('max_concurrent_batches') !== undefined && get('max_concurrent_batches') !== 1) notes.push('max_concurrent_batches above 1: simulated as 1');
  const ongoing = num('max_ongoing_requests', RAY_DEFAULT_MAX_ONGOING_REQUESTS);
  if (!Number.isInteger(ongoing) || ongoing < 1) throw new ScenarioError(`${file}.max_ongoing_requests`, `must be an integer ≥ 1, got ${ongoing}`);
  const max = batchSize(num('max_batch_size', 10), 'max_batch_size', file, B, 10);
  if (ongoing < max) notes.push(`max_ongoing_requests ${ongoing} < max_batch_size ${max}: no batch exceeds ${ongoing}`);
  const policy = new RayServePolicy({ batchWaitTimeout: num('batch_wait_timeout_s', 0.01), maxBatchSize: max, maxOngoingRequests: ongoing });
  // Below B the replica's cap binds every policy the deployment could run, not only this batcher.
  return { policy, notes, ...(ongoing < B ? { restrictions: { maxOngoingRequests: ongoing } } : {}) };
}

/**
 * The numeric keyword arguments of a deployment's `@serve.deployment(…)` and `@serve.batch(…)`
 * decorators (as the export writes them): `name=number` pairs, comments dropped.
 */
function pythonKwargs(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  const code = text.replace(/#[^\n]*/g, '');
  for (const call of code.matchAll(/@serve\.(?:batch|deployment)\s*\(([^)]*)\)/g)) {
    for (const kw of call[1].matchAll(/([A-Za-z_]\w*)\s*=\s*(-?[0-9.]+(?:[eE][-+]?\d+)?)\b/g)) out[kw[1]] = Number(kw[2]);
  }
  return out;
}

function jsonOf(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ScenarioError(field, `is not JSON: ${JSON.stringify(text.slice(0, 40))}`);
  }
}
