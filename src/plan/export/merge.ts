import type { MergeContext, MergeResult } from './mergeNotes.js';
import { mergeTfServing, mergeTriton } from './mergeProto.js';
import { isProperties, mergeRayServe, mergeTorchServeProperties, mergeTorchServeYaml } from './mergeServe.js';
import type { BatchingSetting } from './targets.js';

export type { MergeContext, MergeResult } from './mergeNotes.js';

/**
 * `export --merge`: the setting written into the user's own configuration file, only the batching
 * fields the export sets changed or inserted, every other byte kept; what changed in notes.
 * Triton config.pbtxt, TF Serving batching_parameters.txt, TorchServe config.properties or
 * model-config.yaml, Ray Serve config YAML. Unreadable or mismatched files are refused with a
 * ScenarioError naming the file and line.
 */
export function mergeConfig(s: BatchingSetting, text: string, file: string, c: MergeContext): MergeResult {
  switch (s.target) {
    case 'triton':
      return mergeTriton(text, file, s);
    case 'tf-serving':
      return mergeTfServing(text, file, s, c);
    case 'torchserve':
      return isProperties(text, file) ? mergeTorchServeProperties(text, file, s, c) : mergeTorchServeYaml(text, file, s);
    case 'ray-serve':
      return mergeRayServe(text, file, s, c);
  }
}
