/**
 * An independent evaluator of a batching policy under Poisson arrivals and exponential service,
 * for deep queues (tens of thousands of levels) where the dense evaluator of denseEval.ts cannot
 * go. Shares no code with src/ and takes another route than src/policy/geometricFactor.ts: no
 * geometric count law at all. A batch's service is followed arrival by arrival, in a chain with
 * one step per arrival:
 *
 *   D(s)  a decision epoch with s waiting: wait → D(s + 1); serve a → U_a(s − a)
 *   U_b(m) a batch of b in service, m waiting: the next event is an arrival (→ U_b(m + 1), with
 *          probability q_b = λl/(1 + λl)) or the completion (→ D(m), 1 − q_b)
 *
 * cut at level N (what climbs to N stays there). Every move up is by one level, so once the
 * levels below n are eliminated (state elimination, GTH: pivots are sums of what leaves the state,
 * and only non-negative terms are ever added) every row that pointed below n points into level n
 * alone: one vector over the level's states per live row, at most B + 1 live rows (the decisions
 * D(s) whose batch lands at or below the level being eliminated). Eliminating upwards to D(N)
 * leaves the expected cost and time of a cycle from D(N) back to it; their ratio is the average
 * cost (renewal–reward). The costs per decision epoch are those of docs/model.md §5.2, written out
 * here: wait at s: time 1/λ, request-seconds s/λ, energy P0/λ; serve b at s: time l(b),
 * request-seconds s·l(b) + λ·E[T²]/2 (E[T²] = 2·l(b)²), energy P(b)·l(b).
 */
export interface ExponentialScenario {
  readonly lambda: number;
  readonly l: (b: number) => number;
  readonly P: (b: number) => number;
  readonly P0: number;
  readonly wLat: number;
  readonly wPow: number;
}

interface LiveRow {
  /** Entries over the current level's states: [class c] = U of that class, [C] = D. */
  here: Float64Array;
  /** The same over the next level, filled while the current one is eliminated. */
  next: Float64Array;
  reward: number;
  time: number;
}

/** Average cost g of the policy action(s) (s ≥ 0; it must serve at N) on the chain cut at N. */
export function expandedChainCost(t: ExponentialScenario, action: (s: number) => number, N: number): number {
  const sizes = [...new Set(Array.from({ length: N + 1 }, (_, s) => action(s)).filter((a) => a > 0))];
  const classOf = new Map(sizes.map((b, c) => [b, c]));
  const C = sizes.length;
  const q = sizes.map((b) => (t.lambda * t.l(b)) / (1 + t.lambda * t.l(b)));
  if (action(N) === 0) throw new Error('the policy must serve at the top level');
  const costOf = (s: number): { reward: number; time: number } => {
    const a = action(s);
    if (a === 0) return { reward: (t.wLat * s) / t.lambda ** 2 + (t.wPow * t.P0) / t.lambda, time: 1 / t.lambda };
    const l = t.l(a);
    return { reward: (t.wLat / t.lambda) * (s * l + t.lambda * l * l) + t.wPow * t.P(a) * l, time: l };
  };
  // Live rows by their decision level s; a serve at s starts its row at level s − a.
  const live = new Map<number, LiveRow>();
  const reach = Math.max(...sizes);
  for (let n = 0; n <= N; n++) {
    for (let s = n; s <= Math.min(N, n + reach); s++) {
      const a = action(s);
      if (a > 0 && s - a === n) {
        const row: LiveRow = { here: new Float64Array(C + 1), next: new Float64Array(C + 1), ...costOf(s) };
        row.here[classOf.get(a)!] = 1;
        live.set(s, row);
      }
    }
    if (n === N) break;
    // U_c(n): to U_c(n + 1) with q, to D(n) with 1 − q (its pivot is 1: no self-loop).
    for (const row of live.values()) {
      for (let c = 0; c < C; c++) {
        const w = row.here[c];
        row.next[c] += w * q[c];
        row.here[C] += w * (1 - q[c]);
        row.here[c] = 0;
      }
    }
    // D(n): a wait goes to D(n + 1); a serve goes where its row now points, all at level n + 1.
    const own = live.get(n);
    const pivotRow = own ? own.next : Float64Array.from({ length: C + 1 }, (_, i) => (i === C ? 1 : 0));
    let d = 0;
    for (let i = 0; i <= C; i++) d += pivotRow[i];
    const { reward, time } = own ?? costOf(n);
    for (const [s, row] of live) {
      if (s === n) continue;
      const f = row.here[C] / d;
      if (f === 0) continue;
      for (let i = 0; i <= C; i++) row.next[i] += f * pivotRow[i];
      row.reward += f * reward;
      row.time += f * time;
    }
    live.delete(n);
    for (const row of live.values()) {
      [row.here, row.next] = [row.next, row.here];
      row.next.fill(0);
    }
  }
  // Only D(N) is left (U_c(N) goes to D(N) whatever happens): its cycle's cost over its time.
  const top = live.get(N)!;
  return top.reward / top.time;
}
