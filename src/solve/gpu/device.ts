import { create } from 'webgpu';
import type { AdapterKind } from './autoRule.js';
import { readFlags, type GpuFlags } from './flags.js';
import { onGpuModuleLoaded } from './lifecycle.js';
import { gpuLogger } from './log.js';
import { GpuRunner } from './runner.js';

export type { AdapterKind } from './autoRule.js';

/** The process's GPU: one device, its runner, and what the adapter is. */
export interface GpuContext {
  readonly device: GPUDevice;
  readonly runner: GpuRunner;
  /** e.g. `llvmpipe-llvm-15-0-6-256-bits- (OpenGL version OpenGL ES 3.2 Mesa 22.3.6)`. */
  readonly adapterName: string;
  readonly kind: AdapterKind;
  readonly featureLevel: 'core' | 'compatibility';
  /** True once the device is lost or destroyed; the next acquire creates a new one. */
  readonly isLost: () => boolean;
}

/** BATCHWISE_GPU=required and no adapter (or no device) could be had. */
export class GpuUnavailableError extends Error {
  override readonly name = 'GpuUnavailableError';
}

/** Limits we ask for at the adapter's maximum (compatibility defaults are small). */
const WANTED_LIMITS = [
  'maxStorageBuffersPerShaderStage',
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupStorageSize',
] as const;

const SOFTWARE = /llvmpipe|softpipe|lavapipe|swiftshader|software|warp/i;

let current: Promise<GpuContext | undefined> | undefined;
/**
 * The GPU instances made by create(): Dawn's adapters and devices do not keep their instance
 * alive, and a collected instance takes its devices down with it (a crash, not an error).
 */
const instances = new Map<string, GPU>();

/**
 * The shared GPU context, created on first use and reused: a hardware adapter (default
 * backends, core feature level) first, then a compatibility-level adapter through OpenGL ES
 * (Mesa's llvmpipe on machines without a GPU), then none. Returns undefined when there is no
 * GPU (or BATCHWISE_GPU=off); throws GpuUnavailableError when BATCHWISE_GPU=required.
 */
export async function acquireGpu(flags: GpuFlags = readFlags()): Promise<GpuContext | undefined> {
  if (flags.BATCHWISE_GPU === 'off') return undefined;
  if (current) {
    const ctx = await current;
    if (!ctx || !ctx.isLost()) return ctx ?? requiredOrNone(flags, 'no WebGPU adapter was found');
    current = undefined;
  }
  current = openGpu(flags);
  const ctx = await current;
  return ctx ?? requiredOrNone(flags, 'no WebGPU adapter was found (hardware or OpenGL ES compatibility; for software rendering install Mesa and set EGL_PLATFORM=surfaceless)');
}

function requiredOrNone(flags: GpuFlags, reason: string): undefined {
  if (flags.BATCHWISE_GPU === 'required') throw new GpuUnavailableError(`BATCHWISE_GPU=required: ${reason}`);
  return undefined;
}

/** Destroys the device so the process can exit; a later acquire starts afresh. */
export async function releaseGpu(): Promise<void> {
  const pending = current;
  current = undefined;
  const ctx = pending ? await pending.catch(() => undefined) : undefined;
  if (ctx) {
    ctx.runner.dispose();
    ctx.device.destroy();
  }
}

onGpuModuleLoaded(releaseGpu);

async function openGpu(flags: GpuFlags): Promise<GpuContext | undefined> {
  const log = gpuLogger();
  const attempts: { options: string[]; request: GPURequestAdapterOptions; level: 'core' | 'compatibility' }[] = [
    { options: [], request: { powerPreference: 'high-performance' }, level: 'core' },
    { options: ['backend=opengles'], request: { featureLevel: 'compatibility' }, level: 'compatibility' },
  ];
  for (const a of attempts) {
    // Mesa's EGL needs a platform; compute needs no display, so headless is the right default.
    if (a.level === 'compatibility') process.env.EGL_PLATFORM ??= 'surfaceless';
    let adapter: GPUAdapter | null = null;
    try {
      const key = a.options.join(',');
      const gpu = instances.get(key) ?? create(a.options);
      instances.set(key, gpu);
      adapter = await gpu.requestAdapter(a.request);
    } catch (e) {
      log.debug({ err: e, options: a.options }, 'WebGPU adapter request failed');
    }
    if (!adapter) continue;
    try {
      return await openDevice(adapter, a.level, flags);
    } catch (e) {
      log.warn({ err: e, options: a.options }, 'WebGPU device could not be created; trying the next adapter');
    }
  }
  return undefined;
}

async function openDevice(adapter: GPUAdapter, level: 'core' | 'compatibility', flags: GpuFlags): Promise<GpuContext> {
  const requiredLimits: Record<string, number> = {};
  for (const k of WANTED_LIMITS) requiredLimits[k] = adapter.limits[k];
  const device = await adapter.requestDevice({ label: 'batchwise', requiredLimits });
  const i = adapter.info;
  const parts = [i.vendor, i.architecture, i.device].filter((x) => x);
  const adapterName = `${parts.join(' ') || 'unknown adapter'}${i.description ? ` (${i.description})` : ''}`;
  const software = level === 'compatibility' || i.isFallbackAdapter === true || SOFTWARE.test(`${i.device} ${i.description}`);
  let lost = false;
  const lostInfo = device.lost.then((info) => {
    lost = true;
    // A destroy() of our own at shutdown is expected; anything else is worth a warning.
    if (info.reason !== 'destroyed' || current !== undefined) {
      gpuLogger().warn({ reason: info.reason, message: info.message, adapter: adapterName }, 'WebGPU device lost');
    }
    return info;
  });
  device.onuncapturederror = (ev: GPUUncapturedErrorEvent) => {
    gpuLogger().error({ message: ev.error.message, adapter: adapterName }, 'uncaptured WebGPU error');
  };
  const runner = new GpuRunner(device, flags, gpuLogger, lostInfo);
  gpuLogger().debug({ adapter: adapterName, featureLevel: level, kind: software ? 'software' : 'hardware' }, 'WebGPU device ready');
  return { device, runner, adapterName, kind: software ? 'software' : 'hardware', featureLevel: level, isLost: () => lost };
}
