// Types of scripts/prerequisites.mjs, for its unit test.
export interface SystemProgram {
  readonly program: string;
  readonly package: string;
  readonly neededBy: string;
}
export declare const systemPrograms: readonly SystemProgram[];
export type SystemProgramsPlan = { kind: "ready" } | { kind: "install"; packages: string[] } | { kind: "stop"; line: string };
export declare function planSystemPrograms(facts: {
  missing: readonly SystemProgram[];
  root: boolean;
  aptGet: boolean;
  installTried: boolean;
}): SystemProgramsPlan;
export declare function ensureSystemPrograms(): void;
export interface CachedProgram {
  readonly program: string;
  readonly script: string;
  readonly neededBy: string;
}
export declare const cachedPrograms: readonly CachedProgram[];
export declare function ensureCachedPrograms(): void;
export declare const pythonVersionMin: readonly [number, number];
export declare function pythonVersionProblem(version: string): string | null;
