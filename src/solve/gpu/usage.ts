/**
 * WebGPU flag values (fixed by the WebGPU specification). Dawn's node binding exposes them
 * only as globals; naming them here keeps the module free of global installs.
 */
export const BufferUsage = {
  MAP_READ: 0x0001,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
} as const;

export const MapMode = { READ: 0x0001 } as const;
