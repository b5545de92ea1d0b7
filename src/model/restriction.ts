import { checkNumber, readEnum, readList, readNumber, type Obj } from '../validate/index.js';
import { ScenarioError } from './errors.js';
import type { BatchSizeRule, ModelParams, Restriction } from './scenario.js';
import { RESTRICTIONS } from './shape.js';

/**
 * A serving system's restriction on the batches (docs/model.md §11.1), applied to the model
 * itself: the restricted ModelParams are what every solver, the exact evaluation and the
 * simulator read, so none of them special-cases it.
 *
 * - allowed sizes, PAD_TO_ALLOWED (TF Serving): serving b is charged as c(b) = the smallest
 *   allowed size ≥ b (service law, power, arrivals during it) and removes b requests; tables
 *   [b] become those of c(b).
 * - allowed sizes, ONLY_ALLOWED: serving b is an action only for allowed b (`serves`, which the
 *   compiled model carries as its action set).
 * - a cap C on the requests held (Ray Serve max_ongoing_requests): at a decision epoch no batch
 *   is in service, so the replica holds min(s, C) of the s waiting (the router sends a freed
 *   slot's request at once) and a batch can take at most C; the queue s still counts every
 *   request. The model's largest batch becomes min(B, C) and nothing else changes.
 */
export interface RestrictionInput {
  readonly allowedBatchSizes: readonly number[];
  readonly batchSizeRule: BatchSizeRule;
  readonly maxOngoingRequests: number;
}

const PATH = 'restrictions';

/** Reads `restrictions` (already checked to be an object of its shape) against maxBatchSize B. */
export function readRestrictions(o: Obj, B: number): RestrictionInput | undefined {
  const given = o.allowedBatchSizes !== undefined && o.allowedBatchSizes !== null;
  const allowed: number[] = [];
  if (given) {
    const list = readList(o, RESTRICTIONS, 'allowedBatchSizes', PATH);
    const seen = new Set<number>();
    list.forEach((v, i) => {
      const where = `${PATH}.allowedBatchSizes[${i}]`;
      const a = checkNumber(v, where, { min: 1, integer: true });
      if (a > B) throw new ScenarioError(where, `must be ≤ maxBatchSize = ${B} (got ${a})`);
      if (seen.has(a)) throw new ScenarioError(where, `repeats the size ${a}: each allowed size once`);
      seen.add(a);
      allowed.push(a);
    });
    allowed.sort((a, b) => a - b);
    if (allowed[allowed.length - 1] !== B) {
      throw new ScenarioError(
        `${PATH}.allowedBatchSizes`,
        `must include maxBatchSize = ${B} as its largest size (got largest ${allowed[allowed.length - 1]}); TF Serving requires the same — to batch less, lower maxBatchSize`,
      );
    }
  }
  const batchSizeRule = readEnum(o, RESTRICTIONS, 'batchSizeRule', PATH);
  if (!given && o.batchSizeRule !== undefined && batchSizeRule === 'ONLY_ALLOWED') {
    throw new ScenarioError(`${PATH}.batchSizeRule`, 'ONLY_ALLOWED needs allowedBatchSizes');
  }
  const maxOngoingRequests = readNumber(o, RESTRICTIONS, 'maxOngoingRequests', PATH);
  if (!given && maxOngoingRequests === 0) return undefined;
  return { allowedBatchSizes: allowed, batchSizeRule, maxOngoingRequests };
}

/** Smallest allowed size ≥ b for b = 1..B (b itself without allowed sizes). */
export function paddedSizes(allowed: readonly number[], B: number): Int32Array {
  const out = new Int32Array(B + 1);
  let i = 0;
  for (let b = 1; b <= B; b++) {
    while (i < allowed.length && allowed[i] < b) i++;
    out[b] = allowed.length === 0 ? b : allowed[Math.min(i, allowed.length - 1)];
  }
  return out;
}

/** The restricted model: largest batch, charged sizes and action set as the restriction says. */
export function applyRestriction(base: ModelParams, r: RestrictionInput): ModelParams {
  const B = base.maxBatchSize;
  const exact = r.batchSizeRule === 'ONLY_ALLOWED' && r.allowedBatchSizes.length > 0;
  let top = r.maxOngoingRequests > 0 ? Math.min(B, r.maxOngoingRequests) : B;
  if (exact) {
    const fits = r.allowedBatchSizes.filter((a) => a <= top);
    if (fits.length === 0) {
      throw new ScenarioError(`${PATH}.maxOngoingRequests`, `${r.maxOngoingRequests} is below the smallest allowed batch size ${r.allowedBatchSizes[0]}: no batch can be served`);
    }
    top = fits[fits.length - 1];
  }
  const padded = exact ? null : paddedSizes(r.allowedBatchSizes, B);
  const chargedSize = new Int32Array(top + 1);
  const serves = new Uint8Array(top + 1);
  for (let b = 1; b <= top; b++) {
    chargedSize[b] = padded ? padded[b] : b;
    serves[b] = exact ? (r.allowedBatchSizes.includes(b) ? 1 : 0) : 1;
  }
  const table = (t: Float64Array): Float64Array => {
    const out = new Float64Array(top + 1);
    for (let b = 1; b <= top; b++) out[b] = t[chargedSize[b]];
    return out;
  };
  const restriction: Restriction = {
    allowedBatchSizes: [...r.allowedBatchSizes],
    batchSizeRule: r.batchSizeRule,
    maxOngoingRequests: r.maxOngoingRequests,
    chargedSize,
    serves,
    unrestricted: base,
  };
  return {
    ...base,
    maxBatchSize: top,
    meanService: table(base.meanService),
    secondMoment: table(base.secondMoment),
    busyPower: table(base.busyPower),
    restriction,
  };
}

/** The model without its restriction (itself when it has none). */
export function unrestrictedParams(p: ModelParams): ModelParams {
  return p.restriction?.unrestricted ?? p;
}

/** Whether the model lets a policy serve b (every 1..B without an ONLY_ALLOWED restriction). */
export function servesBatch(p: ModelParams, b: number): boolean {
  if (!(b >= 1 && b <= p.maxBatchSize)) return false;
  return p.restriction ? p.restriction.serves[b] === 1 : true;
}

/** One line for reports: what the restriction is. */
export function describeRestriction(r: Restriction): string {
  const parts: string[] = [];
  if (r.allowedBatchSizes.length > 0) {
    const rule = r.batchSizeRule === 'PAD_TO_ALLOWED' ? 'padded up to' : 'only';
    parts.push(`batch sizes ${rule} ${r.allowedBatchSizes.join(', ')}`);
  }
  if (r.maxOngoingRequests > 0) parts.push(`at most ${r.maxOngoingRequests} requests held`);
  return parts.join('; ');
}
