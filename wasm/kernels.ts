// AssemblyScript source of the wasm kernels (src/wasm/kernels.ts loads the binary built from it:
// `npm run build:wasm`). Each kernel is the only implementation of its loop: the TypeScript
// callers keep the bookkeeping and hand over byte addresses into the memory they import.
// The arithmetic is the same expressions in the same order as the JavaScript they replaced
// (wasm f64 is IEEE binary64 with no fused or reassociated operations), so results agree
// to the last bit.

// @ts-nocheck: AssemblyScript types (f64, i32, usize, load, store) are not TypeScript's.
//
// This entry re-exports the kernels from one file per concern; memory.ts has the helpers.

export { factorSetup, copiedPivots, failedPivot, scanEnvelopes, sweepBegin, sweepRun } from './sweep';
export { bellmanModel, bellmanCascade, bellmanFinish } from './bellman';
export { bellmanServes, bellmanCount } from './serves';
export { stationary, forwardSubstitute, backSubstitute, residual, addInto } from './solve';
export { addServeLaw, addRun, tailCoefficients } from './build';
export { geometricPivots } from './geometric';
export { uniformStep, uniformSum, uniformTodo, uniformReset } from './uniform';
