/**
 * `npm test`: type-check, lint and the tests with coverage, all three at once (on two cores the
 * type-check and lint used to add minutes before the first test started). Each one's output is
 * printed as a block when it ends; the exit code is non-zero when any of them failed.
 */
import { spawn } from "node:child_process";

const steps: Array<[name: string, command: string, args: string[]]> = [
  ["typecheck", "npx", ["tsc", "--noEmit"]],
  ["lint", "npx", ["eslint", "."]],
  ["vitest", "npx", ["vitest", "run", "--coverage"]],
];

const results = await Promise.all(
  steps.map(
    ([name, command, args]) =>
      new Promise<{ name: string; ok: boolean }>((resolve) => {
        const started = Date.now();
        // vitest streams its own progress; the short steps are buffered so blocks do not interleave.
        const live = name === "vitest";
        const child = spawn(command, args, { stdio: live ? "inherit" : ["ignore", "pipe", "pipe"] });
        let output = "";
        if (!live) {
          child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
          child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
        }
        child.on("close", (code) => {
          const ok = code === 0;
          if (!live) process.stdout.write(`\n[${name}] ${ok ? "passed" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s\n${ok ? "" : output}`);
          resolve({ name, ok });
        });
      }),
  ),
);
const failed = results.filter((r) => !r.ok);
process.stdout.write(`\nnpm test: ${failed.length === 0 ? "all passed" : `FAILED: ${failed.map((r) => r.name).join(", ")}`}\n`);
process.exit(failed.length === 0 ? 0 : 1);
