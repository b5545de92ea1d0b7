import type { ModelParams } from '../model/scenario.js';
import type { Rng } from './rng.js';

/**
 * Draws service times T_b with mean l(b) and the scenario's law (docs/model.md §1): deterministic,
 * exponential, or gamma with the scenario's cv (shape k = 1/cv², scale l(b)/k, so that
 * E[T²] = l²(1 + cv²) = m2(b)). One class with a switch rather than one class per law keeps
 * the engine's call site monomorphic.
 */
export class ServiceSampler {
  private readonly kind: 0 | 1 | 2;
  private readonly shape: number;
  private readonly invShape: number;

  constructor(
    private readonly mean: Float64Array,
    params: Pick<ModelParams, 'distribution' | 'cv'>,
    private readonly rng: Rng,
  ) {
    this.kind = params.distribution === 'DETERMINISTIC' ? 0 : params.distribution === 'EXPONENTIAL' ? 1 : 2;
    this.shape = params.cv > 0 ? 1 / (params.cv * params.cv) : Infinity;
    this.invShape = params.cv * params.cv;
  }

  sample(b: number): number {
    const l = this.mean[b];
    if (this.kind === 0) return l;
    if (this.kind === 1) return l * this.rng.nextExponential();
    return l * this.invShape * this.rng.nextGamma(this.shape);
  }
}
