import type { Logger } from 'pino';
import { BufferPool } from './bufferPool.js';
import { type Dispatch, dispatchFor, foldDispatch } from './dispatch.js';
import type { GpuFlags } from './flags.js';
import type { KernelDescriptor } from './kernel.js';
import { makeShader, ShaderError } from './shaderSource.js';
import { packUniforms, type UniformValues } from './uniforms.js';
import { BufferUsage, MapMode } from './usage.js';

/** Any failure of the GPU itself (validation, out of memory, device loss): the solve goes on on the CPU. */
export class GpuError extends Error {
  override readonly name = 'GpuError';
}

/** A kernel with its pipeline, bind group, uniforms and dispatch size, ready to encode. */
export interface BoundKernel {
  readonly kernel: KernelDescriptor;
  readonly pipeline: GPUComputePipeline;
  readonly bindGroup: GPUBindGroup;
  readonly dispatch: Dispatch;
  readonly uniform: GPUBuffer;
}

/** A copy to a staging buffer encoded before a submit, to be mapped after it. */
export interface PendingRead {
  read(): Promise<ArrayBuffer>;
}

/**
 * The one place that owns the GPUDevice (tfjs's runWebGPUProgram, ORT's ProgramManager):
 * compiles kernels once per shader key, binds buffers by declared name, packs uniforms,
 * encodes many dispatches per submit, and reads buffers back. Kernel descriptors and the
 * solver code never call the device directly.
 */
export class GpuRunner {
  readonly pool: BufferPool;
  private readonly pipelines = new Map<string, Promise<GPUComputePipeline>>();

  constructor(
    readonly device: GPUDevice,
    private readonly flags: GpuFlags,
    private readonly log: () => Logger,
    /** Resolves when the device is lost (reads race against it rather than hang). */
    private readonly lost: Promise<GPUDeviceLostInfo>,
  ) {
    this.pool = new BufferPool(device);
  }

  /** Compiles (once per shader key) the kernel's pipeline. `source` replaces the body (tests). */
  pipeline(k: KernelDescriptor, source?: string): Promise<GPUComputePipeline> {
    const key = source === undefined ? k.shaderKey : `${k.shaderKey}:custom`;
    let p = this.pipelines.get(key);
    if (!p) {
      p = this.compile(k, source);
      this.pipelines.set(key, p);
      p.catch(() => this.pipelines.delete(key));
    }
    return p;
  }

  get pipelineCount(): number {
    return this.pipelines.size;
  }

  private async compile(k: KernelDescriptor, source?: string): Promise<GPUComputePipeline> {
    const lim = this.device.limits;
    const maxWg = Math.min(lim.maxComputeInvocationsPerWorkgroup, lim.maxComputeWorkgroupSizeX);
    if (k.workgroupSize > maxWg) {
      throw new ShaderError(k.name, `workgroup size ${k.workgroupSize} exceeds the device limit ${maxWg}`);
    }
    if (k.bindings.length > lim.maxStorageBuffersPerShaderStage) {
      throw new ShaderError(k.name, `binds ${k.bindings.length} storage buffers; the device allows ${lim.maxStorageBuffersPerShaderStage} per stage`);
    }
    const code = makeShader(k, source);
    const print = this.flags.BATCHWISE_GPU_PRINT_SHADER;
    if (print && (print === '*' || k.shaderKey.includes(print))) this.log().info({ shaderKey: k.shaderKey, code }, 'WGSL');
    this.device.pushErrorScope('validation');
    const module = this.device.createShaderModule({ label: k.shaderKey, code });
    const info = await module.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === 'error');
    let pipeline: GPUComputePipeline | undefined;
    let failure: string | undefined;
    if (errors.length) {
      failure = errors.map((m) => `line ${m.lineNum}:${m.linePos}: ${m.message}`).join('\n');
    } else {
      try {
        pipeline = await this.device.createComputePipelineAsync({ label: k.shaderKey, layout: 'auto', compute: { module, entryPoint: 'main' } });
      } catch (e) {
        failure = (e as Error).message;
      }
    }
    const scoped = await this.device.popErrorScope();
    if (!failure && scoped) failure = scoped.message;
    if (failure || !pipeline) throw new ShaderError(k.name, `does not compile (${k.shaderKey}):\n${failure ?? 'no pipeline'}`);
    return pipeline;
  }

  /** Binds named buffers and packed uniforms; one thread per item (or one workgroup per item). */
  async bind(
    k: KernelDescriptor,
    buffers: Readonly<Record<string, GPUBuffer>>,
    uniforms: UniformValues,
    size: { threads: number } | { workgroups: number },
  ): Promise<BoundKernel> {
    const pipeline = await this.pipeline(k);
    const packed = packUniforms(k.name, k.uniforms, uniforms);
    const uniform = this.pool.acquire(packed.byteLength, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
    this.device.queue.writeBuffer(uniform, 0, packed);
    const entries: GPUBindGroupEntry[] = [{ binding: 0, resource: { buffer: uniform, size: packed.byteLength } }];
    k.bindings.forEach((b, i) => {
      const buffer = buffers[b.name];
      if (!buffer) throw new Error(`${k.name}: no buffer for binding ${i + 1} (${b.name})`);
      entries.push({ binding: i + 1, resource: { buffer } });
    });
    const bindGroup = this.device.createBindGroup({ label: k.shaderKey, layout: pipeline.getBindGroupLayout(0), entries });
    const deviceMax = this.device.limits.maxComputeWorkgroupsPerDimension;
    const debugMax = this.flags.BATCHWISE_GPU_MAX_WORKGROUPS_PER_DIMENSION;
    const maxDim = debugMax > 0 ? Math.min(debugMax, deviceMax) : deviceMax;
    const dispatch = 'threads' in size ? dispatchFor(size.threads, k.workgroupSize, maxDim) : foldDispatch(size.workgroups, maxDim);
    return { kernel: k, pipeline, bindGroup, dispatch, uniform };
  }

  unbind(b: BoundKernel): void {
    this.pool.release(b.uniform);
  }

  /** Encodes the kernels in order in one compute pass (storage writes are visible to later dispatches). */
  encodePass(encoder: GPUCommandEncoder, kernels: readonly BoundKernel[], label: string): void {
    const pass = encoder.beginComputePass({ label });
    for (const b of kernels) {
      pass.setPipeline(b.pipeline);
      pass.setBindGroup(0, b.bindGroup);
      pass.dispatchWorkgroups(b.dispatch.x, b.dispatch.y);
    }
    pass.end();
  }

  /** Encodes a copy of `bytes` of `src` into a pooled staging buffer; read it after the submit. */
  encodeRead(encoder: GPUCommandEncoder, src: GPUBuffer, bytes: number): PendingRead {
    const staging = this.pool.acquire(bytes, BufferUsage.MAP_READ | BufferUsage.COPY_DST);
    encoder.copyBufferToBuffer(src, 0, staging, 0, bytes);
    return {
      read: async () => {
        try {
          await Promise.race([
            staging.mapAsync(MapMode.READ, 0, bytes),
            this.lost.then((i) => {
              throw new GpuError(`device lost (${i.reason}): ${i.message}`);
            }),
          ]);
          const copy = staging.getMappedRange(0, bytes).slice(0);
          staging.unmap();
          return copy;
        } finally {
          this.pool.release(staging);
        }
      },
    };
  }

  /**
   * Submits the encoder's commands inside error scopes and reports any validation,
   * out-of-memory or internal error as a GpuError naming `label`.
   */
  async submit(encoder: GPUCommandEncoder, label: string, reads: readonly PendingRead[] = []): Promise<ArrayBuffer[]> {
    const scopes: GPUErrorFilter[] = ['validation', 'out-of-memory', 'internal'];
    for (const s of scopes) this.device.pushErrorScope(s);
    this.device.queue.submit([encoder.finish({ label })]);
    const popped: Promise<GPUError | null>[] = [];
    for (let i = 0; i < scopes.length; i++) popped.push(this.device.popErrorScope());
    this.pool.refresh();
    const [errors, data] = await Promise.all([Promise.all(popped), Promise.allSettled(reads.map((r) => r.read()))]);
    const err = errors.find((e) => e !== null);
    if (err) throw new GpuError(`${label}: ${err.message}`);
    const failed = data.find((d): d is PromiseRejectedResult => d.status === 'rejected');
    if (failed) throw failed.reason instanceof GpuError ? failed.reason : new GpuError(`${label}: ${String((failed.reason as Error)?.message ?? failed.reason)}`);
    return data.map((d) => (d as PromiseFulfilledResult<ArrayBuffer>).value);
  }

  dispose(): void {
    this.pool.dispose();
    this.pipelines.clear();
  }
}
