import { ScenarioError } from './errors.js';

/**
 * Arrival timestamps are seconds. Seconds since 1970 are about 1.7e9 today; 1e11 s is the year
 * 5138, but 1e11 ms is 1973: a trace that starts there is epoch milliseconds read as seconds (its
 * rate comes out 1000× too low), so it is refused with the fix rather than solved.
 */
export function checkSecondsTimestamps(first: number, field: string): void {
  if (!(first >= 1e11)) return;
  const asSeconds = Math.round(1970 + first / 31_557_600);
  const asMs = new Date(first).getUTCFullYear();
  throw new ScenarioError(
    field,
    `starts at ${first}, which as seconds since 1970 is the year ${asSeconds} but as milliseconds ${asMs}: timestamps are seconds, so divide them by 1000`,
  );
}
