import { ScenarioError } from '../model/errors.js';
import type { MmppProcess } from '../model/mmpp/process.js';

/**
 * A stationary policy on (queue, phase): `actions[s·M + j]` for s below the table's levels
 * (0 = wait, b = serve b), and for every larger s "serve min(s, tailBatch)" in every phase.
 * M = `phases`, absent = 1 (Poisson arrivals, or one table for every phase). Solvers return
 * tables with tailBatch = B (docs/model.md §5: beyond S serve min(s, B)); `static:b` uses
 * tailBatch = b.
 */
export interface Policy {
  readonly actions: Int32Array;
  readonly tailBatch: number;
  readonly phases?: number;
}

export function phasesOf(p: Policy): number {
  return p.phases ?? 1;
}

/** Queue levels the table covers. */
export function levelsOf(p: Policy): number {
  return p.actions.length / phasesOf(p);
}

export function actionAt(p: Policy, s: number, j = 0): number {
  const i = s * phasesOf(p) + j;
  return i < p.actions.length ? p.actions[i] : Math.min(s, p.tailBatch);
}

/** The table of one phase, as a one-phase Policy. */
export function phasePolicy(p: Policy, j: number): Policy {
  const M = phasesOf(p);
  const n = levelsOf(p);
  const actions = new Int32Array(n);
  for (let s = 0; s < n; s++) actions[s] = p.actions[s * M + j];
  return { actions, tailBatch: p.tailBatch };
}

/** The same queue-length policy in every one of `phases` phases (a one-phase policy under MMPP traffic). */
export function broadcastPolicy(p: Policy, phases: number): Policy {
  if (phasesOf(p) === phases) return p;
  if (phasesOf(p) !== 1) throw new Error(`broadcastPolicy: a ${phasesOf(p)}-phase policy cannot act in ${phases} phases`);
  const n = p.actions.length;
  const actions = new Int32Array(n * phases);
  for (let s = 0; s < n; s++) actions.fill(p.actions[s], s * phases, (s + 1) * phases);
  return { phases, actions, tailBatch: p.tailBatch };
}

/**
 * The same policy with its table cut where every phase already does what the tail rule does
 * (serve min(s, tailBatch)): it acts alike at every (queue, phase), and an evaluation need not
 * extend past what its own queue needs (a solver's table runs to its S). At least one level stays.
 */
export function trimmedPolicy(p: Policy): Policy {
  const K = phasesOf(p);
  const tail = (s: number): boolean => {
    for (let j = 0; j < K; j++) if (p.actions[s * K + j] !== Math.min(s, p.tailBatch)) return false;
    return true;
  };
  let n = levelsOf(p);
  while (n > 1 && tail(n - 1)) n--;
  return n === levelsOf(p) ? p : { ...p, actions: p.actions.slice(0, n * K) };
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

/** Compact form of docs/model.md §5: control limit, pure or not, and where it deviates. */
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

/** Per-phase compact form: one control limit and one action table per arrival phase (docs/model.md §7). */
export interface PhasePolicySummary extends PolicySummary {
  readonly phase: number;
  /** λ_j, requests/s. */
  readonly rate: number;
  /** Stationary probability π_j of the phase. */
  readonly probability: number;
}

export function summarizePhases(p: Policy, proc: MmppProcess, B: number): PhasePolicySummary[] {
  const whole = broadcastPolicy(p, proc.phases);
  const out: PhasePolicySummary[] = [];
  for (let j = 0; j < proc.phases; j++) {
    out.push({ phase: j, rate: proc.rates[j], probability: proc.stationary[j], ...summarizePolicy(phasePolicy(whole, j), B) });
  }
  return out;
}

/** Checks a policy against a scenario's B and names the first bad entry. */
export function checkPolicy(p: Policy, B: number, field = 'policy'): void {
  const M = phasesOf(p);
  if (!Number.isInteger(M) || M < 1 || p.actions.length % M !== 0) {
    throw new ScenarioError(`${field}.actions`, `must hold a whole number of levels of ${M} phases (got ${p.actions.length} entries)`);
  }
  if (M === 1 && p.actions.length > 0 && p.actions[0] !== 0) {
    throw new ScenarioError(`${field}.actions[0]`, `must be 0: nothing can be served from an empty queue (got ${p.actions[0]})`);
  }
  for (let x = 0; x < p.actions.length; x++) {
    const s = Math.floor(x / M);
    const a = p.actions[x];
    const max = Math.min(s, B);
    if (!Number.isInteger(a) || a < 0 || a > max) {
      const where = M > 1 ? `(queue ${s}, phase ${x % M}) ` : '';
      throw new ScenarioError(`${field}.actions[${x}]`, `${where}must be 0 (wait) or a batch size in 1..min(s, maxBatchSize) = 1..${max} (got ${a})`);
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
