import { setTimeout as sleep } from 'node:timers/promises';

export type Throttled<P, R> = { readonly progress: P } | { readonly result: R };

/**
 * Turns a callback-reporting task into an async stream of at most one progress item per
 * `intervalMs` (the newest one; older ones are dropped, so a slow reader never makes
 * progress pile up), followed by exactly one result item. A failure of the task is thrown.
 */
export async function* throttled<P, R>(
  task: (emit: (p: P) => void) => Promise<R>,
  intervalMs: number,
): AsyncGenerator<Throttled<P, R>, void, undefined> {
  let latest: { p: P } | undefined;
  let onProgress: (() => void) | undefined;
  const settled = task((p) => {
    latest = { p };
    onProgress?.();
  }).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  let outcome: Awaited<typeof settled> | undefined;
  void settled.then((o) => (outcome = o));
  const done = settled.then(() => undefined);
  const timers = new AbortController();
  let lastSent = -Infinity;
  try {
    while (!outcome) {
      if (!latest) {
        await Promise.race([new Promise<void>((r) => (onProgress = r)), done]);
        onProgress = undefined;
        continue;
      }
      const wait = lastSent + intervalMs - performance.now();
      if (wait > 0) {
        // Sleep out the interval unless the task finishes first; newer progress just replaces `latest`.
        await Promise.race([sleep(wait, undefined, { signal: timers.signal }).catch(() => undefined), done]);
        continue;
      }
      const item = latest.p;
      latest = undefined;
      lastSent = performance.now();
      yield { progress: item };
    }
  } finally {
    timers.abort();
  }
  if (!outcome.ok) throw outcome.error;
  yield { result: outcome.value };
}
