/**
 * The time limit of a test whose work is CPU (esbuild bundling, `cdk synth`, a child process that
 * compiles and synthesizes): a guard against a hang, never the assertion. Such work takes 2 to 16 s
 * on a 2-core machine at load 9 and stretches with every other process on it, so the limit sits
 * far above that; the test fails by what it asserts about the output, not by the clock.
 */
export const CPU_WORK_TIMEOUT_MS = 240_000;
