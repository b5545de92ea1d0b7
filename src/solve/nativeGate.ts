/**
 * A hook run once, just before the native WebGPU binding is first loaded in this thread. The
 * CLI sets it when it runs unsupervised (src/cli/bin.ts): a command that turns out to need the
 * GPU is then run again as a supervised child, so what Dawn and the drivers print never reaches
 * its stdout or stderr (docs/gpu.md, "Native output"), while commands that stay on the CPU — most
 * of them, the example included — pay for no second process. The hook may not return.
 */
let gate: (() => Promise<void>) | undefined;

export function setNativeGate(g: (() => Promise<void>) | undefined): void {
  gate = g;
}

export async function beforeNativeLoad(): Promise<void> {
  const g = gate;
  gate = undefined;
  if (g) await g();
}
