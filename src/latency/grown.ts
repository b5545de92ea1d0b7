/** A copy of `a` in a longer array of its kind (n entries), the new entries `fill`. */
export function grown<T extends Int32Array | Float64Array>(a: T, n: number, fill = 0): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}
