/**
 * Reuses GPU buffers across solves (tfjs's BufferManager, ORT's GpuDataManager): free lists
 * keyed by (size class, usage). A released buffer may still be used by encoded but
 * unsubmitted commands, so it waits in `pending` until the runner has submitted them.
 * Counters let a test show that a second identical solve allocates nothing new.
 */

/** What the pool needs from a device: just buffer creation (a fake in unit tests). */
export interface BufferFactory {
  createBuffer(descriptor: GPUBufferDescriptor): GPUBuffer;
}

export interface PoolStats {
  /** Bytes of pooled buffers currently handed out. */
  readonly numBytesUsed: number;
  /** Bytes of all buffers this pool has created and not destroyed. */
  readonly numBytesAllocated: number;
  readonly numBuffersAllocated: number;
}

/**
 * Size classes: 256 bytes minimum, then four classes per power of two (at most 25 % slack),
 * so that solves of slightly different sizes still share buffers. Multiples of 16 throughout.
 */
export function sizeClass(bytes: number): number {
  if (bytes <= 256) return 256;
  const p = 2 ** Math.ceil(Math.log2(bytes));
  const step = p / 8; // classes at 5/8, 6/8, 7/8, 8/8 of p
  return Math.ceil(bytes / step) * step;
}

export class BufferPool {
  private readonly free = new Map<string, GPUBuffer[]>();
  private readonly sizes = new Map<GPUBuffer, number>();
  private pending: GPUBuffer[] = [];
  private used = 0;
  private allocated = 0;
  private count = 0;

  constructor(private readonly device: BufferFactory) {}

  acquire(bytes: number, usage: GPUBufferUsageFlags, label?: string): GPUBuffer {
    const size = sizeClass(bytes);
    const key = `${size}:${usage}`;
    const list = this.free.get(key);
    let buffer = list?.pop();
    if (!buffer) {
      buffer = this.device.createBuffer({ size, usage, label: label ?? `batchwise-pool-${key}` });
      this.sizes.set(buffer, size);
      this.allocated += size;
      this.count++;
    }
    this.used += size;
    return buffer;
  }

  /** Queues the buffer; it becomes reusable at the next `refresh()` (after a submit). */
  release(buffer: GPUBuffer): void {
    const size = this.sizes.get(buffer);
    if (size === undefined) throw new Error('BufferPool.release: buffer was not acquired from this pool');
    this.used -= size;
    this.pending.push(buffer);
  }

  /** Returns released buffers to the free lists: call after every submit. */
  refresh(): void {
    for (const b of this.pending) {
      const key = `${this.sizes.get(b)}:${b.usage}`;
      const list = this.free.get(key);
      if (list) list.push(b);
      else this.free.set(key, [b]);
    }
    this.pending = [];
  }

  stats(): PoolStats {
    return { numBytesUsed: this.used, numBytesAllocated: this.allocated, numBuffersAllocated: this.count };
  }

  /** Destroys every buffer (at shutdown or after device loss). */
  dispose(): void {
    for (const b of this.sizes.keys()) b.destroy();
    this.sizes.clear();
    this.free.clear();
    this.pending = [];
    this.used = 0;
    this.allocated = 0;
    this.count = 0;
  }
}
