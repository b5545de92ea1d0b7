/** Adam (Kingma & Ba 2015) for gradient ascent on a flat parameter vector; deterministic. */
export class Adam {
  private readonly m: Float64Array;
  private readonly v: Float64Array;
  private t = 0;

  constructor(
    size: number,
    private readonly lr: number,
    private readonly beta1 = 0.9,
    private readonly beta2 = 0.999,
    private readonly eps = 1e-8,
  ) {
    this.m = new Float64Array(size);
    this.v = new Float64Array(size);
  }

  /** θ ← θ + lr · m̂ / (√v̂ + ε), in place. */
  ascend(theta: Float64Array, grad: Float64Array): void {
    this.t++;
    const c1 = 1 - this.beta1 ** this.t;
    const c2 = 1 - this.beta2 ** this.t;
    for (let i = 0; i < theta.length; i++) {
      this.m[i] = this.beta1 * this.m[i] + (1 - this.beta1) * grad[i];
      this.v[i] = this.beta2 * this.v[i] + (1 - this.beta2) * grad[i] * grad[i];
      theta[i] += (this.lr * (this.m[i] / c1)) / (Math.sqrt(this.v[i] / c2) + this.eps);
    }
  }
}
