import { stationaryVector } from '../mmpp/process.js';
import { eachState, type PolicyChain } from './chain.js';

/** The coarse chain has at most this many blocks (adjacent levels are grouped beyond it), so its dense solve stays cheap. */
const MAX_BLOCKS = 256;

/**
 * One aggregation–disaggregation step along `axis` (Koury–McAllister–Stewart): the states are
 * grouped by their level n_axis into blocks, the coarse chain between blocks is formed from the
 * flows π_x·P̃(x, ·), and its stationary law ξ solved exactly (GTH): π·ξ_I/π_I puts on each block
 * the mass the coarse chain gives it. Point iterations move mass between distant levels only
 * slowly (a heavily loaded queue drifts back a few levels a step); this moves it in one go.
 * Returns that factor ξ_I/π_I of each state's block, or undefined where the coarse chain cannot
 * be solved. `scratch` is all zero on entry and on return.
 */
export function aggregate(chain: PolicyChain, pi: Float64Array, axis: number, scratch: Float64Array): ((y: number) => number) | undefined {
  const { model } = chain;
  const { C, dims, padDims, strides } = model;
  const levels = dims[axis];
  const width = Math.ceil(levels / MAX_BLOCKS);
  const K = Math.ceil(levels / width);
  const block = (y: number) => Math.floor(Math.floor(y / strides[axis]) % levels / width);
  const outer = model.states / (levels * strides[axis]);
  // How far one transition moves along the axis: down by a batch, up by the arrivals.
  const down = model.params.classes[axis].maxBatchSize;
  const up = Math.max(padDims[axis] - levels, 1);
  const flow = new Float64Array(K * K);
  const mass = new Float64Array(K);
  const lo = new Int32Array(C);
  const hi = Int32Array.from(dims);
  for (let I = 0; I < K; I++) {
    lo[axis] = I * width;
    hi[axis] = Math.min(lo[axis] + width, levels);
    eachState(model, (x, n) => {
      mass[I] += pi[x];
      chain.scatter(x, n, pi[x], scratch);
    }, lo, hi);
    // Gather the block's flows by target block over the levels they can reach, and clear them.
    const first = Math.max(lo[axis] - down, 0);
    const end = Math.min(hi[axis] + up, levels);
    for (let o = 0; o < outer; o++) {
      for (let l = first; l < end; l++) {
        const J = Math.floor(l / width);
        let y = (o * levels + l) * strides[axis];
        let sum = 0;
        for (let i = 0; i < strides[axis]; i++, y++) {
          sum += scratch[y];
          scratch[y] = 0;
        }
        flow[I * K + J] += sum;
      }
    }
  }
  for (let I = 0; I < K; I++) {
    if (!(mass[I] > 0)) return undefined;
    for (let J = 0; J < K; J++) flow[I * K + J] /= mass[I];
  }
  // GTH (no subtraction) reads only the off-diagonal entries, so rows of probabilities serve as well as rates.
  const xi = stationaryVector(flow, K);
  if (!xi) return undefined;
  let total = 0;
  for (let I = 0; I < K; I++) total += mass[I];
  const factor = Float64Array.from(xi, (v, I) => (v * total) / mass[I]);
  return (y) => factor[block(y)];
}
