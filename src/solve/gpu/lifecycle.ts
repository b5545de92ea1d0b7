/**
 * Shutdown without loading the native binding: device.ts registers its release here when it
 * is loaded, so a server can release the GPU at exit whether or not it ever opened one.
 */
let release: (() => Promise<void>) | undefined;

export function onGpuModuleLoaded(fn: () => Promise<void>): void {
  release = fn;
}

/** Destroys the shared GPU device if one was opened (no-op otherwise). */
export async function releaseGpuIfOpen(): Promise<void> {
  await release?.();
}
