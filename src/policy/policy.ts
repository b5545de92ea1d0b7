import { ScenarioError } from '../model/errors.js';

/**
 * A stationary policy: `actions[s]` for s < actions.length (0 = wait, b = serve b), and
 * for every larger s "serve min(s, tailBatch)". Solvers return tables with tailBatch = B
 * (spec §5: beyond S serve min(s, B)); `static:b` uses tailBatch = b.
 */
export interface Policy {
  readonly actions: Int32Array;
  readonly tailBatch: number;
}

export function actionAt(p: Policy, s: number): number {
  return s < p.actions.length ? p.actions[s] : Math.min(s, p.tailBatch);
}

export interface Deviation {
  /** Queue length s. */
  readonly queue: number;
  /** What the policy does there. */
  readonly action: number;
  /** What the pure control-limit policy with the same limit would do. */
  readonly controlLimitAction: number;
}

export interface PolicySummary {
  readonly actions: number[];
  /** Smallest s with a > 0. */
  readonly controlLimit: number;
  /** Wait below the limit, serve min(s, B) from it on, everywhere. */
  readonly isControlLimit: boolean;
  readonly deviations: Deviation[];
}

/** Compact form of spec §5: control limit, pure or not, and where it deviates. */
export function summarizePolicy(p: Policy, B: number): PolicySummary {
  let limit = -1;
  for (let s = 0; s < p.actions.length; s++) {
    if (p.actions[s] > 0) {
      limit = s;
      break;
    }
  }
  if (limit < 0) limit = Math.max(p.actions.length, 1);
  const deviations: Deviation[] = [];
  for (let s = 0; s < p.actions.length; s++) {
    const expected = s < limit ? 0 : Math.min(s, B);
    if (p.actions[s] !== expected) deviations.push({ queue: s, action: p.actions[s], controlLimitAction: expected });
  }
  return {
    actions: Array.from(p.actions),
    controlLimit: limit,
    isControlLimit: deviations.length === 0 && p.tailBatch === B,
    deviations,
  };
}

/** Checks a policy against a scenario's B and names the first bad entry. */
export function checkPolicy(p: Policy, B: number, field = 'policy'): void {
  if (p.actions.length > 0 && p.actions[0] !== 0) {
    throw new ScenarioError(`${field}.actions[0]`, `must be 0: nothing can be served from an empty queue (got ${p.actions[0]})`);
  }
  for (let s = 1; s < p.actions.length; s++) {
    const a = p.actions[s];
    const max = Math.min(s, B);
    if (!Number.isInteger(a) || a < 0 || a > max) {
      throw new ScenarioError(`${field}.actions[${s}]`, `must be 0 (wait) or a batch size in 1..min(s, maxBatchSize) = 1..${max} (got ${a})`);
    }
  }
  if (!Number.isInteger(p.tailBatch) || p.tailBatch < 1 || p.tailBatch > B) {
    throw new ScenarioError(`${field}.tailBatch`, `must be in 1..maxBatchSize = 1..${B} (got ${p.tailBatch})`);
  }
}

export function greedyPolicy(B: number): Policy {
  return { actions: Int32Array.of(0), tailBatch: B };
}

export function controlLimitPolicy(M: number, B: number): Policy {
  return { actions: new Int32Array(Math.max(M, 1)), tailBatch: B };
}

export function staticPolicy(b: number): Policy {
  return { actions: new Int32Array(b), tailBatch: b };
}

/**
 * Parses `greedy`, `static:b`, `control-limit:M` or `table:a0,a1,…` (also accepted as a
 * JSON array) against a scenario's B.
 */
export function parsePolicySpec(spec: string, B: number, field = 'policy'): Policy {
  const text = spec.trim();
  const [kind, arg = ''] = splitOnce(text, ':');
  const int = (s: string, what: string, min: number, max: number): number => {
    const v = Number(s);
    if (s.trim() === '' || !Number.isInteger(v)) throw new ScenarioError(field, `${what} must be an integer (got ${JSON.stringify(s)})`);
    if (v < min || v > max) throw new ScenarioError(field, `${what} must be in ${min}..${max} (got ${v})`);
    return v;
  };
  let policy: Policy;
  switch (kind.toLowerCase()) {
    case 'greedy':
      policy = greedyPolicy(B);
      break;
    case 'static':
      policy = staticPolicy(int(arg, 'static:b batch size b', 1, B));
      break;
    case 'control-limit':
      policy = controlLimitPolicy(int(arg, 'control-limit:M limit M', 1, 1_000_000), B);
      break;
    case 'table': {
      const parts = arg.split(',').filter((x) => x.trim() !== '');
      if (parts.length === 0) throw new ScenarioError(field, 'table: needs at least one action, e.g. table:0,0,2,3');
      const actions = Int32Array.from(parts.map((x, i) => int(x, `table entry ${i}`, 0, B)));
      policy = { actions, tailBatch: B };
      break;
    }
    default:
      throw new ScenarioError(
        field,
        `unknown policy ${JSON.stringify(text)}: expected greedy, static:b, control-limit:M or table:a0,a1,…`,
      );
  }
  checkPolicy(policy, B, field);
  return policy;
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}

/** Canonical text of a policy (the inverse of parsePolicySpec for tables). */
export function formatPolicy(p: Policy): string {
  return `table:${Array.from(p.actions).join(',')}`;
}
