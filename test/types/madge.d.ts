/** The part of madge's API the architecture test uses (the package ships no types). */
declare module 'madge' {
  interface MadgeResult {
    /** Each file and the files it imports. */
    obj(): Record<string, string[]>;
    /** Each import circle as the files along it. */
    circular(): string[][];
  }
  interface MadgeConfig {
    fileExtensions?: string[];
    tsConfig?: string;
  }
  export default function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
}
