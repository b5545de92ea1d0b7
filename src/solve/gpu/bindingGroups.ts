import { sizeClass } from './bufferPool.js';

/** Bytes a scenario adds to each binding of a batch, by binding name. */
export type BindingBytes = Readonly<Record<string, number>>;

/** The largest buffer of a batch of these bytes, at the size the buffer pool hands out. */
export function largestOf(bytes: BindingBytes): number {
  return sizeClass(Math.max(...Object.values(bytes)));
}

function sum(a: BindingBytes, b: BindingBytes): BindingBytes {
  const out: Record<string, number> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/**
 * Splits a batch into groups that fit one set of bindings — every buffer, at the size the
 * buffer pool will hand out for it, under the device's maxStorageBufferBindingSize — keeping
 * the order. A scenario too big alone is refused, `describe(i)` naming it.
 */
export function groupsUnder(needs: readonly BindingBytes[], maxBindingBytes: number, describe: (i: number) => string): number[][] {
  const groups: number[][] = [];
  let group: number[] = [];
  let used: BindingBytes = {};
  needs.forEach((need, i) => {
    if (largestOf(need) > maxBindingBytes) {
      throw new Error(`${describe(i)} needs a ${largestOf(need)}-byte binding, over the binding limit ${maxBindingBytes}`);
    }
    if (group.length && largestOf(sum(used, need)) > maxBindingBytes) {
      groups.push(group);
      group = [];
      used = {};
    }
    group.push(i);
    used = sum(used, need);
  });
  if (group.length) groups.push(group);
  return groups;
}

/** Runs `jobs` group by group (`groups`, from groupsUnder) and gathers the results in the jobs' order. */
export async function runInGroups<J, R>(jobs: readonly J[], groups: readonly number[][], run: (group: readonly J[]) => Promise<R[]>): Promise<R[]> {
  const out = new Array<R>(jobs.length);
  for (const group of groups) {
    const res = await run(group.map((i) => jobs[i]));
    group.forEach((i, k) => (out[i] = res[k]));
  }
  return out;
}
