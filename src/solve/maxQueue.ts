/**
 * A truncation level S from a queue quantile q: room for one more batch above it, since the
 * optimal control limit rarely exceeds B (the tail check grows S when this was not enough).
 * Shared by the Poisson and MMPP searches so that M = 1 picks the same S.
 */
export function withRoomToWait(q: number, B: number): number {
  return q + B + Math.max(16, B >> 2);
}
