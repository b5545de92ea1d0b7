import { LimitError, throwIfAborted } from '../model/errors.js';
import type { Backend, ValidatedScenario } from '../model/scenario.js';
import type { Evaluation } from '../policy/evaluate.js';
import type { Policy } from '../policy/policy.js';
import type { SolveResult } from '../solve/result.js';
import { solveScenarioDetailed } from '../solve/solveScenario.js';

/**
 * The Lagrangian of the planning problems is one family of ordinary solves:
 *
 *     g_μ(π) = E[P](π) + μ·E[R](π)        (latencyWeight = μ, powerWeight = 1)
 *
 * μ is an exchange rate in watts per second of mean response time. Every quantity in the
 * planning layer is in these units, so the cost of a policy at a weight is in watts.
 * μ = ∞ is the pure latency problem (latencyWeight 1, powerWeight 0). μ = 0 (pure power) is
 * never solved: it is degenerate (many policies tie on power and some let the queue grow
 * without bound), so the power end of the frontier is approached from μ > 0 instead and
 * certified with the bound of `powerBound.ts`.
 */
export interface WeightedPolicy {
  /** The weight it was solved at (W per s); Infinity for the pure latency problem. */
  readonly weight: number;
  readonly policy: Policy;
  /** Exact f64 figures of the policy (E[R], E[P], …); averageCost here is the Lagrangian E[P] + μ·E[R] (E[R] at μ = ∞). */
  readonly figures: Evaluation;
  /** The solve itself (certified interval for g*_μ, solver facts). */
  readonly solve: SolveResult;
}

/** E[P] + μ·E[R] of a point, in watts (μ = ∞ compares latency only). */
export function lagrangian(point: { readonly meanPower: number; readonly meanResponseTime: number }, mu: number): number {
  return point.meanPower + mu * point.meanResponseTime;
}

/** Room to grow when a solve goes below every weight solved so far (the core grows S by ×1.5 + B per retry). */
const GROWTH_HINT = 1.6;

export interface WeightSolverOptions {
  readonly signal?: AbortSignal;
  readonly backend?: Backend;
  /** Called before each solve (for progress lines): what it solves. */
  readonly onProgress?: (step: string) => void;
}

/**
 * Solves a scenario at Lagrange weights. Each solve starts its automatic search for S at the
 * S that the nearest weight needed, which skips the regrowth steps (S grows as the weight
 * falls, since the optimal queue gets longer). Policies are deliberately not carried over
 * as warm starts: policy iteration started from a neighbour's policy was seen to cycle on
 * ties until its iteration cap. Counts the solves so results can report their cost.
 */
export class WeightSolver {
  private readonly done: { weight: number; maxQueue: number }[] = [];
  solves = 0;

  constructor(
    readonly scenario: ValidatedScenario,
    private readonly opts: WeightSolverOptions = {},
  ) {}

  async solveAt(mu: number): Promise<WeightedPolicy> {
    throwIfAborted(this.opts.signal);
    if (!(mu > 0)) throw new RangeError(`Lagrange weight must be > 0 (got ${mu})`);
    const p = this.scenario.params;
    const weights = mu === Infinity ? { latencyWeight: 1, powerWeight: 0 } : { latencyWeight: mu, powerWeight: 1 };
    this.opts.onProgress?.(`solve ${this.solves + 1}, ${mu === Infinity ? 'least latency' : `weight ${mu.toPrecision(4)} W/s`}`);
    const scenario: ValidatedScenario = { params: { ...p, ...weights }, solver: this.scenario.solver };
    let sol = await solveScenarioDetailed(scenario, {
      signal: this.opts.signal,
      backend: this.opts.backend,
      initialMaxQueue: this.nearest(mu),
      percentiles: false,
    });
    this.solves++;
    if (sol.result.solver.stopReason !== 'converged') {
      // Without the hint the solver starts from its own S; a second refusal is an error.
      sol = await solveScenarioDetailed(scenario, { signal: this.opts.signal, backend: this.opts.backend, percentiles: false });
      this.solves++;
      if (sol.result.solver.stopReason !== 'converged') {
        throw new LimitError('solver.maxIterations', `the solve at Lagrange weight ${mu} W/s did not converge (${sol.result.solver.stopReason})`);
      }
    }
    this.done.push({ weight: mu, maxQueue: sol.result.solver.maxQueue });
    const { policy: _summary, solver: _facts, averageCostLower: _lo, averageCostUpper: _hi, ...figures } = sol.result;
    return {
      weight: mu,
      policy: {
        actions: sol.warmStart.policy,
        tailBatch: p.maxBatchSize,
        ...(sol.warmStart.phases > 1 ? { phases: sol.warmStart.phases } : {}),
      },
      figures,
      solve: sol.result,
    };
  }

  /**
   * First S for a solve at μ. The S a solve needs grows as μ falls (the optimal queue gets
   * longer), so the S of the nearest solved weight at or below μ is enough. Below every
   * solved weight, take the smallest known weight's S with room to grow. Starting big enough
   * matters beyond speed: the core's regrowth warm-starts policy iteration, which can cycle.
   */
  private nearest(mu: number): number | undefined {
    let below: { weight: number; maxQueue: number } | undefined;
    let lowest: { weight: number; maxQueue: number } | undefined;
    for (const d of this.done) {
      if (d.weight <= mu && (!below || d.weight > below.weight)) below = d;
      if (!lowest || d.weight < lowest.weight) lowest = d;
    }
    if (below) return below.maxQueue;
    return lowest ? Math.ceil(lowest.maxQueue * GROWTH_HINT) : undefined;
  }
}
