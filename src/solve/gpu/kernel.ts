import { type StructDecl } from './structs.js';
import type { UniformDecl } from './uniforms.js';

/** A storage buffer a kernel binds; binding numbers follow the list order, from 1 (0 is the uniforms). */
export interface BindingDecl {
  readonly name: string;
  readonly access: 'read' | 'read_write';
  /** WGSL type, e.g. `array<f32>` or `array<ScenarioInfo>`. */
  readonly type: string;
}

/**
 * Everything about one compute kernel that is plain data (ORT's ProgramInfo, tfjs's
 * WebGPUProgram): which shader file holds its body, what it binds, its uniforms, and every
 * choice that changes the compiled code, all folded into `shaderKey`. Kernels never touch the
 * device; the runner compiles, binds and dispatches them.
 */
export interface KernelDescriptor {
  /** Also the shader file: `shaders/<name>.wgsl`. */
  readonly name: string;
  /** Pipeline cache key: name plus every compile-time choice. */
  readonly shaderKey: string;
  readonly workgroupSize: number;
  readonly structs: readonly StructDecl[];
  readonly bindings: readonly BindingDecl[];
  readonly uniforms: readonly UniformDecl[];
  /** WGSL helpers several kernels share, from `shaders/lib/<name>.wgsl`, placed before the body. */
  readonly includes?: readonly string[];
}

/**
 * The comment every shader file opens with: its bindings and uniform struct. The loader
 * checks the file against it, so the file's documentation is always the truth.
 */
export function interfaceComment(k: Pick<KernelDescriptor, 'name' | 'bindings' | 'uniforms'>): string {
  const lines = [
    `// ${k.name}.wgsl`,
    '// bindings (group 0):',
    '//   @binding(0) u: Uniforms (uniform)',
    ...k.bindings.map((b, i) => `//   @binding(${i + 1}) ${b.name}: ${b.type} (${b.access})`),
    '// uniforms:',
    ...(k.uniforms.length ? k.uniforms.map((u) => `//   ${u.name}: ${u.type}`) : ['//   (none)']),
  ];
  return lines.join('\n') + '\n';
}
