/**
 * An independent discrete-event simulation of docs/model.md §2 for the response-time tests: Poisson
 * arrivals, a FIFO queue, a policy table over the level at each epoch (0 = wait for the next
 * arrival, b = serve the b oldest), service times drawn per batch. It shares no code with src/.
 * Returns the response times in order of arrival.
 */
export interface SimPolicy {
  readonly actions: ArrayLike<number>;
  readonly tailBatch: number;
}

export function simulateResponseTimes(
  lambda: number,
  policy: SimPolicy,
  serviceTime: (b: number, u: () => number) => number,
  requests: number,
  u: () => number,
): Float64Array {
  const act = (s: number): number => (s < policy.actions.length ? policy.actions[s] : Math.min(s, policy.tailBatch));
  const arrivals = new Float64Array(requests);
  let t = 0;
  for (let i = 0; i < requests; i++) arrivals[i] = t += -Math.log(1 - u()) / lambda;
  const out = new Float64Array(requests);
  let head = 0; // oldest waiting
  let next = 0; // next arrival not yet in the queue
  let now = 0;
  while (head < requests) {
    while (next < requests && arrivals[next] <= now) next++;
    const a = act(next - head);
    if (a === 0) {
      if (next >= requests) break;
      now = arrivals[next]; // an arrival while idle is the next epoch
      continue;
    }
    const done = now + serviceTime(a, u);
    for (let i = head; i < head + a; i++) out[i] = done - arrivals[i];
    head += a;
    now = done;
  }
  return out.subarray(0, head);
}

/** Share of R ≤ t and its batch-means standard error over `batches` consecutive blocks. */
export function shareBelow(r: Float64Array, t: number, batches = 40): { share: number; se: number } {
  const n = Math.floor(r.length / batches);
  const shares: number[] = [];
  for (let b = 0; b < batches; b++) {
    let c = 0;
    for (let i = b * n; i < (b + 1) * n; i++) if (r[i] <= t) c++;
    shares.push(c / n);
  }
  const mean = shares.reduce((x, y) => x + y, 0) / batches;
  const v = shares.reduce((x, y) => x + (y - mean) ** 2, 0) / (batches - 1);
  return { share: mean, se: Math.sqrt(v / batches) };
}
