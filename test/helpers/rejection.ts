import { expect } from 'vitest';

/** The error `p` rejects with, checked to be an instance of `type` (a fulfilled `p` fails the test). */
export async function rejectionOf<E>(p: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(type);
  return e as E;
}
