import { ScenarioError } from '../model/errors.js';
import type { ModelParams } from '../model/scenario.js';
import { parsePolicySpec, type Policy } from '../policy/policy.js';
import { parseDuration } from './durations.js';
import { AimdPolicy } from './policies/aimd.js';
import { RAY_DEFAULT_MAX_ONGOING_REQUESTS, RayServePolicy } from './policies/rayServe.js';
import { TfServingPolicy } from './policies/tfServing.js';
import { TorchServePolicy } from './policies/torchServe.js';
import { TritonPolicy } from './policies/triton.js';
import type { SimPolicy } from './policies/types.js';
import { tablePolicy } from './simulate.js';

/**
 * The simulator's policy syntax, a superset of the solver's (`greedy`, `static:b`,
 * `control-limit:M`, `table:a0,a1,…`):
 *
 *   optimal                                  the solver's policy (resolved by the caller)
 *   triton[:delay=2ms,preferred=8|16,max=32]  Triton dynamic batching
 *   tf-serving[:timeout=1ms,max=32,allowed=8|16|32]  TF-Serving batching
 *   aimd:slo=5ms[,step=1,backoff=0.9,max=32,start=1] Clipper-style AIMD
 *   torchserve[:delay=5ms,max=32]            TorchServe batchSize / maxBatchDelay (whole ms)
 *   ray-serve[:timeout=10ms,max=32,ongoing=5] Ray Serve @serve.batch on one replica
 *
 * Parameters also go by the names those systems use (snake_case or camelCase):
 * max_queue_delay_microseconds, preferred_batch_size, max_batch_size (Triton);
 * batch_timeout_micros, max_batch_size, allowed_batch_sizes (TF-Serving); slo_micros
 * (Clipper); maxBatchDelay (bare ms), batchSize (TorchServe); batch_wait_timeout_s (bare s),
 * max_batch_size, max_ongoing_requests (Ray Serve). `*_micros`/`*_microseconds` take bare
 * numbers as µs; short names need a unit. Defaults are the systems' own (TorchServe 100 ms;
 * Ray 10 ms and 5 ongoing requests), except the max batch size, which defaults to B.
 * Lists are separated by `|`.
 */
export type SimPolicySpec =
  | { readonly kind: 'optimal' }
  | { readonly kind: 'table'; readonly policy: Policy }
  | { readonly kind: 'triton'; readonly maxQueueDelay: number; readonly preferredBatchSizes: number[]; readonly maxBatchSize: number }
  | { readonly kind: 'tf-serving'; readonly batchTimeout: number; readonly maxBatchSize: number; readonly allowedBatchSizes: number[] }
  | { readonly kind: 'torchserve'; readonly maxBatchDelayMs: number; readonly batchSize: number }
  | { readonly kind: 'ray-serve'; readonly batchWaitTimeout: number; readonly maxBatchSize: number; readonly maxOngoingRequests: number }
  | {
      readonly kind: 'aimd';
      readonly latencySlo: number;
      readonly additiveIncrease: number;
      readonly multiplicativeDecrease: number;
      readonly maxBatchSize: number;
      readonly initialBatchSize: number;
    };

type Params = Map<string, { key: string; value: string }>;

/** Parameter aliases: normalised key (lower case, no `_`) → canonical name. */
const TRITON_KEYS: Record<string, string> = {
  delay: 'delay',
  maxqueuedelaymicroseconds: 'delay_us',
  maxqueuedelay: 'delay',
  preferred: 'preferred',
  preferredbatchsize: 'preferred',
  preferredbatchsizes: 'preferred',
  max: 'max',
  maxbatchsize: 'max',
};
const TF_KEYS: Record<string, string> = {
  timeout: 'timeout',
  batchtimeout: 'timeout',
  batchtimeoutmicros: 'timeout_us',
  max: 'max',
  maxbatchsize: 'max',
  allowed: 'allowed',
  allowedbatchsizes: 'allowed',
};
const TORCHSERVE_KEYS: Record<string, string> = {
  delay: 'delay',
  maxbatchdelay: 'delay_ms',
  max: 'max',
  batchsize: 'max',
};
const RAY_KEYS: Record<string, string> = {
  timeout: 'timeout',
  batchwaittimeout: 'timeout',
  batchwaittimeouts: 'timeout_s',
  max: 'max',
  maxbatchsize: 'max',
  ongoing: 'ongoing',
  maxongoingrequests: 'ongoing',
};
const AIMD_KEYS: Record<string, string> = {
  slo: 'slo',
  latencyslo: 'slo',
  slomicros: 'slo_us',
  latencyslomicros: 'slo_us',
  step: 'step',
  additiveincrease: 'step',
  backoff: 'backoff',
  multiplicativedecrease: 'backoff',
  max: 'max',
  maxbatchsize: 'max',
  start: 'start',
  initialbatchsize: 'start',
};

export function parseSimPolicySpec(spec: string, B: number, field = 'policy'): SimPolicySpec {
  const text = spec.trim();
  const colon = text.indexOf(':');
  const kind = (colon < 0 ? text : text.slice(0, colon)).toLowerCase();
  const arg = colon < 0 ? '' : text.slice(colon + 1);
  switch (kind) {
    case 'optimal':
      if (arg.trim() !== '') throw new ScenarioError(field, 'optimal takes no parameters');
      return { kind: 'optimal' };
    case 'triton': {
      const p = parseParams(arg, TRITON_KEYS, field, 'triton');
      const max = intParam(p, 'max', field, 1, B, B);
      const delay = durationParam(p, 'delay', 'delay_us', field, 0);
      const preferred = listParam(p, 'preferred', field, 1, max);
      return { kind: 'triton', maxQueueDelay: delay, preferredBatchSizes: preferred, maxBatchSize: max };
    }
    case 'tf-serving':
    case 'tfserving':
    case 'tf': {
      const p = parseParams(arg, TF_KEYS, field, 'tf-serving');
      const max = intParam(p, 'max', field, 1, B, B);
      const timeout = durationParam(p, 'timeout', 'timeout_us', field, 0);
      const allowed = listParam(p, 'allowed', field, 1, max);
      if (allowed.length > 0 && allowed[allowed.length - 1] !== max) {
        throw new ScenarioError(field, `tf-serving: the last allowed_batch_sizes entry must equal max_batch_size = ${max} (got ${allowed.join('|')})`);
      }
      return { kind: 'tf-serving', batchTimeout: timeout, maxBatchSize: max, allowedBatchSizes: allowed };
    }
    case 'torchserve': {
      const p = parseParams(arg, TORCHSERVE_KEYS, field, 'torchserve');
      const delay = durationParam(p, 'delay', 'delay_ms', field, 0.1, 'ms');
      const ms = Math.round(delay * 1e3);
      if (Math.abs(delay * 1e3 - ms) > 1e-9) throw new ScenarioError(`${field}.delay`, `torchserve: maxBatchDelay is a whole number of ms (got ${delay * 1e3} ms)`);
      return { kind: 'torchserve', maxBatchDelayMs: ms, batchSize: intParam(p, 'max', field, 1, B, B) };
    }
    case 'ray-serve':
    case 'rayserve':
    case 'ray': {
      const p = parseParams(arg, RAY_KEYS, field, 'ray-serve');
      return {
        kind: 'ray-serve',
        batchWaitTimeout: durationParam(p, 'timeout', 'timeout_s', field, 0.01, 's'),
        maxBatchSize: intParam(p, 'max', field, 1, B, B),
        maxOngoingRequests: intParam(p, 'ongoing', field, 1, 1e9, RAY_DEFAULT_MAX_ONGOING_REQUESTS),
      };
    }
    case 'aimd':
    case 'clipper': {
      const p = parseParams(arg, AIMD_KEYS, field, 'aimd');
      if (!p.has('slo') && !p.has('slo_us')) throw new ScenarioError(field, 'aimd needs a latency objective, e.g. aimd:slo=5ms');
      const max = intParam(p, 'max', field, 1, B, B);
      const latencySlo = durationParam(p, 'slo', 'slo_us', field, 0);
      if (!(latencySlo > 0)) throw new ScenarioError(field, `aimd: the latency objective must be > 0 (got ${latencySlo} s)`);
      return {
        kind: 'aimd',
        latencySlo,
        additiveIncrease: numberParam(p, 'step', field, 1, 1, max),
        multiplicativeDecrease: numberParam(p, 'backoff', field, 0.9, 0.01, 0.99),
        maxBatchSize: max,
        initialBatchSize: intParam(p, 'start', field, 1, max, 1),
      };
    }
    default:
      try {
        return { kind: 'table', policy: parsePolicySpec(text, B, field) };
      } catch (e) {
        if (e instanceof ScenarioError && e.reason.startsWith('unknown policy')) {
          throw new ScenarioError(
            field,
            `unknown policy ${JSON.stringify(text)}: expected optimal, greedy, static:b, control-limit:M, table:a0,a1,…, triton:…, tf-serving:…, torchserve:…, ray-serve:… or aimd:…`,
          );
        }
        throw e;
      }
  }
}

/** Builds the runnable policy; `optimal` needs the solver's policy. */
export function buildSimPolicy(spec: SimPolicySpec, params: ModelParams, optimal?: Policy): SimPolicy {
  const B = params.maxBatchSize;
  switch (spec.kind) {
    case 'optimal':
      if (!optimal) throw new ScenarioError('policy', 'optimal needs the solved policy (no solver was given)');
      return tablePolicy(optimal, B, 'optimal');
    case 'table':
      return tablePolicy(spec.policy, B);
    case 'triton':
      return new TritonPolicy(spec);
    case 'tf-serving':
      return new TfServingPolicy(spec);
    case 'torchserve':
      return new TorchServePolicy(spec);
    case 'ray-serve':
      return new RayServePolicy(spec);
    case 'aimd':
      return new AimdPolicy(spec);
  }
}

function parseParams(arg: string, keys: Record<string, string>, field: string, kind: string): Params {
  const out: Params = new Map();
  for (const part of arg.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) throw new ScenarioError(field, `${kind}: parameter ${JSON.stringify(part.trim())} needs a value (name=value)`);
    const key = part.slice(0, eq).trim();
    const canonical = keys[key.toLowerCase().replace(/[_-]/g, '')];
    if (canonical === undefined) {
      const names = [...new Set(Object.keys(keys))].join(', ');
      throw new ScenarioError(field, `${kind}: unknown parameter ${JSON.stringify(key)} (known, in any case or with _: ${names})`);
    }
    const group = canonical.replace(/_(us|ms|s)$/, '');
    for (const [c] of out) {
      if (c.replace(/_(us|ms|s)$/, '') === group) throw new ScenarioError(field, `${kind}: parameter ${JSON.stringify(key)} is given twice`);
    }
    out.set(canonical, { key, value: part.slice(eq + 1).trim() });
  }
  return out;
}

/** A duration by its short name (unit required) or its system name (bare numbers in `unit`). */
function durationParam(p: Params, name: string, systemName: string, field: string, fallback: number, unit: 'us' | 'ms' | 's' = 'us'): number {
  const short = p.get(name);
  const system = p.get(systemName);
  const entry = short ?? system;
  if (!entry) return fallback;
  const v = parseDuration(entry.value, `${field}.${entry.key}`, system ? unit : undefined);
  if (v < 0) throw new ScenarioError(`${field}.${entry.key}`, `must be ≥ 0 (got ${entry.value})`);
  return v;
}

function numberParam(p: Params, name: string, field: string, fallback: number, min: number, max: number): number {
  const entry = p.get(name);
  if (!entry) return fallback;
  const v = Number(entry.value);
  if (entry.value === '' || !Number.isFinite(v)) throw new ScenarioError(`${field}.${entry.key}`, `must be a number (got ${JSON.stringify(entry.value)})`);
  if (v < min || v > max) throw new ScenarioError(`${field}.${entry.key}`, `must be in [${min}, ${max}] (got ${v})`);
  return v;
}

function intParam(p: Params, name: string, field: string, min: number, max: number, fallback: number): number {
  const entry = p.get(name);
  if (!entry) return fallback;
  return toInt(entry.value, `${field}.${entry.key}`, min, max);
}

function listParam(p: Params, name: string, field: string, min: number, max: number): number[] {
  const entry = p.get(name);
  if (!entry) return [];
  const values = entry.value.split('|').map((x) => toInt(x, `${field}.${entry.key}`, min, max));
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  if (sorted.length !== values.length) throw new ScenarioError(`${field}.${entry.key}`, `repeats a size (${entry.value})`);
  return sorted;
}

function toInt(text: string, field: string, min: number, max: number): number {
  const v = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(v)) throw new ScenarioError(field, `must be an integer (got ${JSON.stringify(text)})`);
  if (v < min || v > max) throw new ScenarioError(field, `must be in ${min}..${max} (got ${v})`);
  return v;
}
