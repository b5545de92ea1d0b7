/**
 * Items grouped by key: each group in input order, the groups in the order their first item
 * comes. A batch's identical scenarios (one canonical key) form a group, solved once and
 * answered for each of its items.
 */
export function groupByKey<T>(items: readonly T[], key: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const g = groups.get(k);
    if (g) g.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.values()];
}
