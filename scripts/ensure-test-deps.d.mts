// Types of ensure-test-deps.mjs, for the test helpers that import it.
export interface TestDep {
  readonly name: string;
  readonly command: string;
  readonly env: string;
  readonly fallback?: string;
  readonly apt: string;
  readonly brew: string;
  readonly tests: string;
}
export declare const TEST_DEPS: readonly TestDep[];
export declare function locateTestDep(dep: TestDep, env?: NodeJS.ProcessEnv): string | undefined;
export declare function missingTestDeps(env?: NodeJS.ProcessEnv): TestDep[];
export declare function installHint(deps: readonly TestDep[]): string;
export declare function testDepsRequired(env?: NodeJS.ProcessEnv): boolean;
export declare function ensureTestDeps(options?: { env?: NodeJS.ProcessEnv; log?: (line: string) => void; quiet?: boolean }): TestDep[];
