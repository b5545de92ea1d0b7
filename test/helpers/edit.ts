type Json = Record<string, unknown>;

/** A deep copy of `base` (JSON data) with an edit at a dotted path, creating objects on the way; undefined deletes. */
export function edit(base: unknown, path: string, value: unknown): Json {
  const s = JSON.parse(JSON.stringify(base)) as Json;
  const keys = path.split('.');
  let o: Json = s;
  for (const k of keys.slice(0, -1)) {
    o[k] ??= {};
    o = o[k] as Json;
  }
  const last = keys[keys.length - 1];
  if (value === undefined) delete o[last];
  else o[last] = value;
  return s;
}
