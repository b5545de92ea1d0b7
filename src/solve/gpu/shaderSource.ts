import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interfaceComment, type KernelDescriptor } from './kernel.js';
import { structWgsl } from './structs.js';
import { uniformStruct } from './uniforms.js';

/** A shader that cannot be loaded, does not match its declaration, or does not compile. */
export class ShaderError extends Error {
  override readonly name = 'ShaderError';
  constructor(
    readonly shader: string,
    detail: string,
  ) {
    super(`shader ${shader}: ${detail}`);
  }
}

let shaderDir: string | undefined;

/** `shaders/` at the package root, found upwards from this module (works from src/ and dist/). */
export function shadersDirectory(): string {
  if (shaderDir) return shaderDir;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'shaders');
    if (existsSync(join(candidate, 'bellman_sweep.wgsl'))) return (shaderDir = candidate);
    dir = dirname(dir);
  }
  throw new ShaderError('*', `no shaders/ directory found above ${fileURLToPath(import.meta.url)}`);
}

const files = new Map<string, string>();

/**
 * The kernel's body from `shaders/<name>.wgsl` (read once). The file must open with the
 * comment that lists the kernel's declared bindings and uniforms (see interfaceComment).
 */
export function loadShaderBody(k: KernelDescriptor): string {
  const path = join(shadersDirectory(), `${k.name}.wgsl`);
  const text = readShaderFile(k.name, path);
  const expected = interfaceComment(k);
  if (!text.startsWith(expected)) {
    throw new ShaderError(k.name, `${path} must open with the comment of its declared interface:\n${expected}`);
  }
  return text;
}

/** A shared helper's WGSL from `shaders/lib/<name>.wgsl` (read once). */
export function loadInclude(name: string): string {
  return readShaderFile(name, join(shadersDirectory(), 'lib', `${name}.wgsl`));
}

function readShaderFile(shader: string, path: string): string {
  let text = files.get(path);
  if (text === undefined) {
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new ShaderError(shader, `cannot read ${path}: ${(e as Error).message}`);
    }
    files.set(path, text);
  }
  return text;
}

/**
 * The full WGSL of a kernel (tfjs's makeShader): constants, structs, the uniform struct and
 * the numbered bindings are generated from the descriptor; the body supplies
 * `fn run(wg: u32, lid: u32)`, called with the linear workgroup index (2-D dispatches folded
 * back) and the local invocation index.
 */
export function makeShader(k: KernelDescriptor, body: string = loadShaderBody(k)): string {
  const bindings = [
    '@group(0) @binding(0) var<uniform> u: Uniforms;',
    ...k.bindings.map((b, i) => `@group(0) @binding(${i + 1}) var<storage, ${b.access}> ${b.name}: ${b.type};`),
  ];
  return [
    `// generated for ${k.shaderKey}`,
    `const WORKGROUP_SIZE: u32 = ${k.workgroupSize}u;`,
    ...k.structs.map(structWgsl),
    uniformStruct(k.uniforms),
    ...bindings,
    '',
    ...(k.includes ?? []).map(loadInclude),
    body,
    `@compute @workgroup_size(${k.workgroupSize})`,
    'fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,',
    '        @builtin(local_invocation_index) lid: u32) {',
    '  run(wid.y * nwg.x + wid.x, lid);',
    '}',
    '',
  ].join('\n');
}
