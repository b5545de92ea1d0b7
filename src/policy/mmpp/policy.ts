import { ScenarioError } from '../../model/errors.js';
import type { MmppProcess } from '../../model/mmpp/process.js';
import { summarizePolicy, type Policy, type PolicySummary } from '../policy.js';

/**
 * A stationary policy on (queue, phase): `actions[s·M + j]` for s < levels (0 = wait,
 * b = serve b), and for every larger s "serve min(s, tailBatch)" in every phase.
 */
export interface MmppPolicy {
  readonly phases: number;
  readonly actions: Int32Array;
  readonly tailBatch: number;
}

export function mmppLevels(p: MmppPolicy): number {
  return p.actions.length / p.phases;
}

export function mmppActionAt(p: MmppPolicy, s: number, j: number): number {
  const i = s * p.phases + j;
  return i < p.actions.length ? p.actions[i] : Math.min(s, p.tailBatch);
}

/** The table of one phase, as a one-phase Policy. */
export function phasePolicy(p: MmppPolicy, j: number): Policy {
  const n = mmppLevels(p);
  const actions = new Int32Array(n);
  for (let s = 0; s < n; s++) actions[s] = p.actions[s * p.phases + j];
  return { actions, tailBatch: p.tailBatch };
}

/** The same queue-length policy in every phase (what a Poisson-model policy does under MMPP traffic). */
export function broadcastPolicy(p: Policy, phases: number): MmppPolicy {
  const n = p.actions.length;
  const actions = new Int32Array(n * phases);
  for (let s = 0; s < n; s++) actions.fill(p.actions[s], s * phases, (s + 1) * phases);
  return { phases, actions, tailBatch: p.tailBatch };
}

/** Per-phase compact form: one control limit and one action table per arrival phase (spec §7). */
export interface PhasePolicySummary extends PolicySummary {
  readonly phase: number;
  /** λ_j, requests/s. */
  readonly rate: number;
  /** Stationary probability π_j of the phase. */
  readonly probability: number;
}

export function summarizeMmppPolicy(p: MmppPolicy, proc: MmppProcess, B: number): PhasePolicySummary[] {
  const out: PhasePolicySummary[] = [];
  for (let j = 0; j < p.phases; j++) {
    out.push({ phase: j, rate: proc.rates[j], probability: proc.stationary[j], ...summarizePolicy(phasePolicy(p, j), B) });
  }
  return out;
}

/** Checks a policy table against B and names the first bad entry. */
export function checkMmppPolicy(p: MmppPolicy, B: number, field = 'policy'): void {
  const M = p.phases;
  if (!Number.isInteger(M) || M < 1 || p.actions.length % M !== 0) {
    throw new ScenarioError(`${field}.actions`, `must hold a whole number of levels of ${M} phases (got ${p.actions.length} entries)`);
  }
  for (let x = 0; x < p.actions.length; x++) {
    const s = Math.floor(x / M);
    const a = p.actions[x];
    const max = Math.min(s, B);
    if (!Number.isInteger(a) || a < 0 || a > max) {
      throw new ScenarioError(
        `${field}.actions[${x}]`,
        `(queue ${s}, phase ${x % M}) must be 0 (wait) or a batch size in 1..min(s, maxBatchSize) = 1..${max} (got ${a})`,
      );
    }
  }
  if (!Number.isInteger(p.tailBatch) || p.tailBatch < 1 || p.tailBatch > B) {
    throw new ScenarioError(`${field}.tailBatch`, `must be in 1..maxBatchSize = 1..${B} (got ${p.tailBatch})`);
  }
}
