import { ScenarioError } from '../errors.js';
import { MMPP_LIMITS } from './limits.js';
import { makeMmpp, type MmppProcess } from './process.js';

/** A two-phase burst profile as users think of it (docs/model.md §7). */
export interface BurstProfile {
  /** λ̄, requests/s. */
  readonly meanRate: number;
  /** λ_burst / λ̄ ≥ 1. */
  readonly peakToMean: number;
  /** Mean length of a burst, seconds (exponential). */
  readonly meanBurstSeconds: number;
  /** Mean time between bursts, seconds (exponential). */
  readonly meanGapSeconds: number;
}

/**
 * The burst profile as an MMPP with phases [base, burst]: the burst phase has rate
 * r·λ̄ and lasts Exp(mean β); the base phase lasts Exp(mean γ) and carries the rest of the
 * mean rate, λ_base = λ̄·(1 − r·β/(β+γ))·(β+γ)/γ. That rate is ≥ 0 only for r ≤ 1 + γ/β
 * (at equality the base phase is silent: an on/off source).
 */
export function burstToMmpp(b: BurstProfile, field = 'arrivalProcess.burst'): MmppProcess {
  const { meanRate, peakToMean: r, meanBurstSeconds: beta, meanGapSeconds: gamma } = b;
  const burstShare = beta / (beta + gamma);
  const maxRatio = 1 + gamma / beta;
  if (r > maxRatio * (1 + 1e-12)) {
    throw new ScenarioError(
      `${field}.peakToMean`,
      `must be ≤ 1 + meanGapSeconds/meanBurstSeconds = ${maxRatio} (got ${r}): the bursts alone would carry more than the mean rate`,
    );
  }
  // The phases switch at 1/β and 1/γ per second: the same bound as any generator entry.
  for (const [key, t] of [['meanBurstSeconds', beta], ['meanGapSeconds', gamma]] as const) {
    if (1 / t > MMPP_LIMITS.maxRate) {
      throw new ScenarioError(
        `${field}.${key}`,
        `must be ≥ ${1 / MMPP_LIMITS.maxRate} s (got ${t}): the phases would switch at ${(1 / t).toExponential(2)} /s, over the bound ${MMPP_LIMITS.maxRate} /s`,
      );
    }
  }
  const peak = r * meanRate;
  const base = Math.max(0, (meanRate * (1 - r * burstShare)) / (1 - burstShare));
  const generator = [0, 1 / gamma, 1 / beta, 0];
  return makeMmpp([base, peak], generator, 'burst');
}
