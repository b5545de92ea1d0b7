#!/usr/bin/env bash
# The GPU benchmark sections on a machine with a hardware adapter (docs/gpu.md, "AUTO"): the single-class
# sweep and solves (section "GPU vs CPU"), MMPP on the GPU, and the joint multi-class model ("classes on
# the GPU", at S = (100, 100) and (300, 300) on hardware). BATCHWISE_GPU=required turns a missing adapter
# into a failure instead of a skip. The sections replace their namesakes in docs/benchmarks.md and
# bench/results/latest.json, with the machine and its load; set the AUTO thresholds from them
# (BATCHWISE_GPU_AUTO_MIN_WORK_HARDWARE).
# On a GPU machine without Node.js, build here and carry node, the built tree and the loaders there
# (e.g. with a bundler that packs `node`, this tree and libvulkan1), then run this script in the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/bench/run.js ] || npm run build
export BATCHWISE_GPU=required
exec node dist/bench/run.js --only gpu,classesGpu,mmppGpu "$@"
