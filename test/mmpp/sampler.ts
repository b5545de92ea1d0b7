/**
 * Test-only: a seeded sampler of MMPP arrival times, written directly from the definition
 * (exponential holding times in each phase, Poisson arrivals inside), sharing no code with src/.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function exponential(rng: () => number, rate: number): number {
  return -Math.log(1 - rng()) / rate;
}

/** Arrival times on [0, duration) of the MMPP (rates, generator as rows), started in `phase`. */
export function sampleMmpp(rates: number[], Q: number[][], duration: number, seed: number, phase = 0): Float64Array {
  const rng = mulberry32(seed);
  const out: number[] = [];
  let t = 0;
  let j = phase;
  while (t < duration) {
    const leave = -Q[j][j];
    const stay = leave > 0 ? exponential(rng, leave) : Infinity;
    const end = Math.min(t + stay, duration);
    if (rates[j] > 0) {
      for (let a = t + exponential(rng, rates[j]); a < end; a += exponential(rng, rates[j])) out.push(a);
    }
    t = end;
    if (t >= duration) break;
    let u = rng() * leave;
    for (let k = 0; k < rates.length; k++) {
      if (k === j) continue;
      u -= Q[j][k];
      if (u <= 0) {
        j = k;
        break;
      }
    }
  }
  return Float64Array.from(out);
}
