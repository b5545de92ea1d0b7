/**
 * Uniforms of a kernel, declared once as a list: the WGSL struct and the byte packing are
 * both generated from it, so they cannot disagree (ORT's registerUniform idea).
 * Layout follows WGSL's alignment rules for the uniform address space.
 */
export type UniformScalar = 'u32' | 'i32' | 'f32';
export type UniformType = UniformScalar | `vec${2 | 3 | 4}<${UniformScalar}>`;

export interface UniformDecl {
  readonly name: string;
  readonly type: UniformType;
  /** A value the declaration fixes (callers give none): e.g. real_zero, a 0 the compiler cannot see (shaders/lib/real_df64.wgsl). */
  readonly value?: number;
}

export type UniformValues = Readonly<Record<string, number | readonly number[]>>;

interface Field {
  readonly decl: UniformDecl;
  readonly scalar: UniformScalar;
  readonly count: number;
  readonly offset: number;
}

export interface UniformLayout {
  readonly fields: readonly Field[];
  /** Bytes, a multiple of 16 (a uniform struct's size rounds up to its alignment, at least 16). */
  readonly size: number;
}

function parse(type: UniformType): { scalar: UniformScalar; count: number } {
  const m = /^vec([234])<(u32|i32|f32)>$/.exec(type);
  if (m) return { scalar: m[2] as UniformScalar, count: Number(m[1]) };
  return { scalar: type as UniformScalar, count: 1 };
}

export function uniformLayout(decls: readonly UniformDecl[]): UniformLayout {
  const fields: Field[] = [];
  let offset = 0;
  const seen = new Set<string>();
  for (const decl of decls) {
    if (!/^[a-z_][A-Za-z0-9_]*$/.test(decl.name)) throw new Error(`uniform name ${JSON.stringify(decl.name)} is not a WGSL identifier`);
    if (seen.has(decl.name)) throw new Error(`uniform ${decl.name} is declared twice`);
    seen.add(decl.name);
    const { scalar, count } = parse(decl.type);
    // WGSL: align(vec2) = 8, align(vec3) = align(vec4) = 16, scalars 4.
    const align = count === 1 ? 4 : count === 2 ? 8 : 16;
    offset = Math.ceil(offset / align) * align;
    fields.push({ decl, scalar, count, offset });
    offset += 4 * count;
  }
  return { fields, size: Math.max(16, Math.ceil(offset / 16) * 16) };
}

/** `struct Uniforms { ... }` for the declared fields. */
export function uniformStruct(decls: readonly UniformDecl[]): string {
  if (decls.length === 0) return 'struct Uniforms { unused: u32, }\n';
  return `struct Uniforms {\n${decls.map((d) => `  ${d.name}: ${d.type},`).join('\n')}\n}\n`;
}

/**
 * Packs values into one buffer by the declared layout. Every declared name must be given,
 * with the right arity and range, and nothing else; errors name the kernel and the field.
 */
export function packUniforms(kernel: string, decls: readonly UniformDecl[], values: UniformValues): ArrayBuffer {
  const layout = uniformLayout(decls);
  const buf = new ArrayBuffer(layout.size);
  const view = new DataView(buf);
  for (const key of Object.keys(values)) {
    if (!decls.some((d) => d.name === key)) throw new Error(`${kernel}: uniform ${key} is not declared`);
  }
  for (const f of layout.fields) {
    const raw = f.decl.value ?? values[f.decl.name];
    if (raw === undefined) throw new Error(`${kernel}: uniform ${f.decl.name} has no value`);
    const list = typeof raw === 'number' ? [raw] : raw;
    if (list.length !== f.count) throw new Error(`${kernel}: uniform ${f.decl.name} needs ${f.count} value(s), got ${list.length}`);
    list.forEach((v, i) => {
      const at = f.offset + 4 * i;
      if (f.scalar === 'f32') {
        view.setFloat32(at, v, true);
      } else {
        const ok = Number.isInteger(v) && (f.scalar === 'u32' ? v >= 0 && v <= 0xffffffff : v >= -0x80000000 && v <= 0x7fffffff);
        if (!ok) throw new Error(`${kernel}: uniform ${f.decl.name} = ${v} is not a valid ${f.scalar}`);
        if (f.scalar === 'u32') view.setUint32(at, v, true);
        else view.setInt32(at, v, true);
      }
    });
  }
  return buf;
}
