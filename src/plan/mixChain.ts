import { arrivalsOf, buildArrivalTable, type ArrivalTable } from '../model/arrivalTable.js';
import { epochSojourn } from '../model/epoch.js';
import { LimitError } from '../model/errors.js';
import { LIMITS } from '../model/limits.js';
import type { ModelParams } from '../model/scenario.js';
import { solveChain } from '../policy/chain.js';
import { actionAt, levelsOf, phasesOf, type Policy } from '../policy/policy.js';
import { EXTENSION_TOP_MASS } from '../policy/extension.js';
import { buildStateChain, chainFigures } from '../policy/stateChain.js';
import type { Figures } from './figures.js';

/**
 * Exact evaluation of a switching mix of two deterministic policies, independent of the
 * renewal argument that chose its probability (mix.ts): the embedded chain on (s, m), where
 * m says which policy the current cycle follows. At the flat state `state` = r·M + j (queue
 * length r in arrival phase j; M = 1 for Poisson) a coin is tossed (probability `p` for
 * `first`) and the chosen policy is followed until the next visit to `state`. When the two
 * policies differ only at `state`, m is irrelevant and this is the stationary randomised
 * policy "in `state` take first's action with probability p". Both policies act in all M phases.
 *
 * State (s, j, m) has index (s·M + j)·2 + m (policy/stateChain.ts with two modes).
 */
export interface MixEvaluation extends Figures {
  /** Stationary probability of each copy (following first / second). */
  readonly modeShare: readonly [number, number];
}

export function evaluateMix(p: ModelParams, first: Policy, second: Policy, state: number, prob: number, pmfs?: ArrivalTable): MixEvaluation {
  const proc = arrivalsOf(p);
  const M = proc.phases;
  if (phasesOf(first) !== M || phasesOf(second) !== M) throw new Error(`evaluateMix: both policies must act in the scenario's ${M} phases`);
  const table = pmfs ?? buildArrivalTable(p);
  const policies = [first, second];
  let down = 1;
  let up = 1;
  for (let b = 1; b <= p.maxBatchSize; b++) {
    down = Math.max(down, b - table.offset[b]);
    up = Math.max(up, table.offset[b] + table.length[b] - 1 - b);
  }
  const reach = down + up;
  let n = Math.max(levelsOf(first), levelsOf(second), Math.floor(state / M) + 1) + 2 * reach;
  n = Math.max(n, 64);
  for (;;) {
    if (2 * M * n * (2 * M * (reach + 2) - 1) > LIMITS.maxBandEntries) {
      throw new LimitError('policy', `the mix's queue does not settle within ${n} states: a policy is too close to instability`);
    }
    // Time spent following `first`: the sojourns of the branches that go on in its mode.
    const yFirst = new Float64Array(2 * M * n);
    const { chain, sums } = buildStateChain(p, proc, table, { levels: n, modes: 2, loLevels: down, hiLevels: up }, (s, j, m, out) => {
      const i = (s * M + j) * 2 + m;
      let count = 0;
      const branch = (policy: Policy, q: number, mode: number): void => {
        if (!(q > 0)) return;
        const a = actionAt(policy, s, j);
        out.action[count] = a;
        out.prob[count] = q;
        out.mode[count] = mode;
        count++;
        if (mode === 0) yFirst[i] += q * epochSojourn(p, proc, a, j);
      };
      if (s * M + j === state) {
        branch(first, prob, 0);
        branch(second, 1 - prob, 1);
      } else {
        branch(policies[m], 1, m);
      }
      return count;
    });
    const nu = solveChain(chain).stationary;
    let top = 0;
    for (let i = 2 * M * Math.max(0, n - reach); i < nu.length; i++) top += nu[i];
    if (top < EXTENSION_TOP_MASS) {
      const { averageCost: _g, ...figures } = chainFigures(p, proc, sums, nu);
      let timeFirst = 0;
      let time = 0;
      for (let i = 0; i < nu.length; i++) {
        timeFirst += nu[i] * yFirst[i];
        time += nu[i] * sums.Y[i];
      }
      return { ...figures, modeShare: [timeFirst / time, 1 - timeFirst / time] };
    }
    n *= 2;
  }
}
