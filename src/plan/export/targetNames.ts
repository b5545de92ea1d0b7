/**
 * The names of the serving systems a policy exports to, apart from their specs (targets.ts):
 * the CLI lists them in its help, which must not load the simulator policies the specs build.
 */
export type ExportTarget = 'triton' | 'tf-serving' | 'ray-serve' | 'torchserve';
export const EXPORT_TARGETS: readonly ExportTarget[] = ['triton', 'tf-serving', 'ray-serve', 'torchserve'];
