import { ScenarioError } from '../../model/errors.js';
import { Notes, type MergeContext, type MergeResult } from './mergeNotes.js';
import { compact, fieldSpans, insertAfterLine, insertAtTop, insertInBody, readProto, remove, splice, type FieldSpan } from './protoEdit.js';
import { TRITON_INSTANCE_GROUP } from './render.js';
import type { BatchingSetting } from './targets.js';

/**
 * The export merged into a user's protobuf text-format file: Triton config.pbtxt or TF Serving
 * batching_parameters.txt. Each step reads the file afresh and edits only the bytes of the field it
 * sets (a value token, or a field inserted / removed); everything else stays as written.
 */
const micros = (seconds: number): number => Math.round(seconds * 1e6);

function refuseOthers(fields: FieldSpan[], names: readonly string[], file: string, why: string): void {
  const f = fields.find((x) => names.includes(x.name));
  if (f) throw new ScenarioError(file, `line ${f.line}: ${f.name} ${why}`);
}

/** dynamic_batching fields kept as written that the simulated single FIFO queue does not have. */
const DEPARTS: Readonly<Record<string, string>> = {
  default_queue_policy: 'requests may time out or be rejected; the model assumes none is',
  priority_queue_policy: 'requests may time out or be rejected; the model assumes none is',
  priority_levels: 'priority queues; the model assumes one FIFO queue',
};

export function mergeTriton(text: string, file: string, s: BatchingSetting): MergeResult {
  const notes = new Notes();
  let f = readProto(text, file);
  refuseOthers(f.fields, ['batch_timeout_micros', 'num_batch_threads', 'max_enqueued_batches'], file, 'is a TF Serving batching parameter: this is not a Triton config.pbtxt');
  refuseOthers(f.fields, ['sequence_batching', 'ensemble_scheduling'], file, 'is set: Triton takes one scheduler per model, so dynamic_batching cannot be added');
  // max_batch_size: the value token(s), else a line after name / platform / backend.
  const mbs = f.fields.filter((x) => x.name === 'max_batch_size');
  notes.set('max_batch_size', mbs.at(-1)?.scalar?.text, String(s.maxBatchSize));
  if (mbs.length > 0) {
    for (const x of [...mbs].reverse()) if (x.scalar) text = splice(text, x.scalar.start, x.end, String(s.maxBatchSize));
  } else {
    const head = f.fields.filter((x) => ['name', 'platform', 'backend'].includes(x.name)).at(-1);
    text = head ? insertAfterLine(text, head.end, [`max_batch_size: ${s.maxBatchSize}`]) : insertAtTop(text, [`max_batch_size: ${s.maxBatchSize}`]);
  }
  text = mergeDynamicBatching(text, file, s, notes);
  // instance_group as the export writes it, in place of the first, the others removed.
  f = readProto(text, file);
  const groups = f.fields.filter((x) => x.name === 'instance_group');
  const group = TRITON_INSTANCE_GROUP.join('\n');
  const old = groups.map((g) => compact(text, g).replace(/^instance_group\s*:?\s*/, '').trim()).join(' ');
  notes.set('instance_group', groups.length === 0 ? undefined : old, '[ { count: 1 kind: KIND_GPU gpus: [ 0 ] } ]');
  if (groups.length > 0) {
    for (const g of groups.slice(1).reverse()) text = remove(text, g);
    text = splice(text, groups[0].start, groups[0].end, group);
  } else {
    const db = readProto(text, file).fields.find((x) => x.name === 'dynamic_batching')!;
    text = insertAfterLine(text, db.end, TRITON_INSTANCE_GROUP as string[]);
  }
  return { text, notes: notes.lines };
}

function mergeDynamicBatching(text: string, file: string, s: BatchingSetting, notes: Notes): string {
  const f = readProto(text, file);
  const delay = micros(s.delay);
  const preferred = s.preferredBatchSizes.length > 0 ? `preferred_batch_size: [ ${s.preferredBatchSizes.join(', ')} ]` : undefined;
  const db = f.fields.find((x) => x.name === 'dynamic_batching');
  if (db === undefined) {
    const mbs = f.fields.find((x) => x.name === 'max_batch_size')!;
    notes.push(`added: dynamic_batching { ${preferred ? `${preferred} ` : ''}max_queue_delay_microseconds: ${delay} }`);
    return insertAfterLine(text, mbs.end, ['dynamic_batching {', ...(preferred ? [`  ${preferred}`] : []), `  max_queue_delay_microseconds: ${delay}`, '}']);
  }
  if (!db.body) throw new ScenarioError(file, `line ${db.line}: dynamic_batching must be a message ({ … })`);
  const inner = fieldSpans(f.tokens, db.body.from, db.body.to);
  for (const x of inner) if (x.name in DEPARTS) notes.push(`kept: dynamic_batching.${compact(text, x)} (departs from the model: ${DEPARTS[x.name]})`);
  // max_queue_delay_microseconds first (it lies after or before the preferred sizes; edits run back to front).
  const delays = inner.filter((x) => x.name === 'max_queue_delay_microseconds');
  const prefs = inner.filter((x) => x.name === 'preferred_batch_size');
  const oldPrefs = prefs.map((p) => compact(text, p).replace(/^preferred_batch_size\s*:?\s*/, '').replace(/[[\]]/g, '').trim()).join(', ');
  notes.set('dynamic_batching.max_queue_delay_microseconds', delays.at(-1)?.scalar?.text, String(delay));
  notes.set('dynamic_batching.preferred_batch_size', prefs.length > 0 ? `[ ${oldPrefs} ]` : preferred ? undefined : 'none', preferred ? `[ ${s.preferredBatchSizes.join(', ')} ]` : 'none');
  type Edit = { at: number; apply: (t: string) => string };
  const edits: Edit[] = [];
  for (const x of delays) edits.push({ at: x.start, apply: (t) => splice(t, x.scalar?.start ?? x.start, x.end, x.scalar ? String(delay) : `max_queue_delay_microseconds: ${delay}`) });
  prefs.forEach((x, k) => edits.push({ at: x.start, apply: (t) => (k === 0 && preferred ? splice(t, x.start, x.end, preferred) : remove(t, x)) }));
  for (const e of edits.sort((a, b) => b.at - a.at)) text = e.apply(text);
  const missing = [...(delays.length === 0 ? [`max_queue_delay_microseconds: ${delay}`] : []), ...(prefs.length === 0 && preferred ? [preferred] : [])];
  for (const field of missing) {
    const g = readProto(text, file);
    const d = g.fields.find((x) => x.name === 'dynamic_batching')!;
    text = insertInBody(text, d.body!, fieldSpans(g.tokens, d.body!.from, d.body!.to), field);
  }
  return text;
}

const TF_FIELDS = ['max_batch_size', 'batch_timeout_micros', 'num_batch_threads', 'max_enqueued_batches'] as const;

export function mergeTfServing(text: string, file: string, s: BatchingSetting, c: MergeContext): MergeResult {
  const notes = new Notes();
  const f0 = readProto(text, file);
  refuseOthers(f0.fields, ['dynamic_batching', 'instance_group', 'platform', 'backend', 'input', 'output'], file, 'is a Triton model-config field: this is not a TF Serving batching_parameters.txt');
  const values: Record<(typeof TF_FIELDS)[number], number> = {
    max_batch_size: s.maxBatchSize,
    batch_timeout_micros: micros(s.delay),
    num_batch_threads: 1,
    max_enqueued_batches: c.maxEnqueuedBatches,
  };
  for (const name of TF_FIELDS) {
    const f = readProto(text, file);
    const v = String(values[name]);
    const spans = f.fields.filter((x) => x.name === name);
    const valueOf = (x: FieldSpan): FieldSpan | undefined => (x.body ? fieldSpans(f.tokens, x.body.from, x.body.to).find((y) => y.name === 'value' && y.scalar) : undefined);
    const last = spans.at(-1);
    notes.set(name, last ? (valueOf(last)?.scalar?.text ?? last.scalar?.text ?? compact(text, last)) : undefined, v);
    for (const x of [...spans].reverse()) {
      const inner = valueOf(x);
      text = inner ? splice(text, inner.scalar!.start, inner.end, v) : splice(text, x.start, x.end, `${name} { value: ${v} }`);
    }
    if (spans.length === 0) text = f.fields.length > 0 ? insertAfterLine(text, f.fields.at(-1)!.end, [`${name} { value: ${v} }`]) : insertAtTop(text, [`${name} { value: ${v} }`]);
  }
  const allowed = readProto(text, file).fields.filter((x) => x.name === 'allowed_batch_sizes');
  const sizes = allowed.map((x) => compact(text, x).replace(/^allowed_batch_sizes\s*:?\s*/, '').replace(/[[\]]/g, '').trim()).join(', ');
  const wanted = s.allowedBatchSizes ?? [];
  if (wanted.length > 0) {
    // The restricted optimum was solved for these sizes (scenario restrictions): one list, in place of any the file has.
    const line = `allowed_batch_sizes: [ ${wanted.join(', ')} ]`;
    if (allowed.length === 0) {
      const f = readProto(text, file);
      text = f.fields.length > 0 ? insertAfterLine(text, f.fields.at(-1)!.end, [line]) : insertAtTop(text, [line]);
      notes.push(`added: allowed_batch_sizes [ ${wanted.join(', ')} ]`);
    } else {
      for (const x of [...allowed].slice(1).reverse()) text = remove(text, x);
      const first = readProto(text, file).fields.find((x) => x.name === 'allowed_batch_sizes')!;
      text = splice(text, first.start, first.end, line);
      notes.push(sizes === wanted.join(', ') ? `unchanged: allowed_batch_sizes [ ${sizes} ]` : `changed: allowed_batch_sizes [ ${sizes} ] → [ ${wanted.join(', ')} ]`);
    }
  } else if (allowed.length > 0) {
    const last = Number(sizes.split(/[,\s]+/).at(-1));
    notes.push(
      `kept: allowed_batch_sizes [ ${sizes} ] (the export's model assumed none: batches are padded up to the next allowed size)` +
        (last !== s.maxBatchSize ? `; its last entry must equal max_batch_size ${s.maxBatchSize}, or TF Serving refuses the file` : ''),
    );
  }
  return { text, notes: notes.lines };
}
