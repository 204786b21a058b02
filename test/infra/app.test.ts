/**
 * The CDK app's entry point as the CLI runs it (context through CDK_CONTEXT_JSON): a bad
 * environment choice prints its message and exits 1, never a stack trace. The successful path
 * (every environment when none is chosen) is resolveEnvironments' (environments.test.ts) and
 * the synths' (stack.test.ts); running it here would bundle every function.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../infra/webgate-stack";
import { CPU_WORK_TIMEOUT_MS } from "../helpers/cpu-work";
import { CDK_CONTEXT } from "./synth";

function runApp(context: Record<string, unknown>) {
  const outdir = mkdtempSync(path.join(tmpdir(), "webgate-app-"));
  try {
    return spawnSync(process.execPath, [path.join(REPO_ROOT, "node_modules/tsx/dist/cli.mjs"), path.join(REPO_ROOT, "infra/app.ts")], {
      cwd: REPO_ROOT,
      env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ ...CDK_CONTEXT, "aws:cdk:bundling-stacks": [], ...context }), CDK_OUTDIR: outdir },
      encoding: "utf8",
      timeout: CPU_WORK_TIMEOUT_MS,
    });
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe("infra/app.ts", () => {
  it("names the known environments for an unknown one, exit 1, no stack trace", { timeout: CPU_WORK_TIMEOUT_MS }, () => {
    const run = runApp({ env: "staging" });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe('Unknown environment "staging": expected one of dev, prod');
  });

  it("lists every invalid setting, exit 1, no stack trace", { timeout: CPU_WORK_TIMEOUT_MS }, () => {
    const environments = structuredClone(CDK_CONTEXT.environments) as Record<string, Record<string, unknown>>;
    delete environments.prod!.account;
    const run = runApp({ environments });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Invalid settings for environment "prod"');
    expect(run.stderr).toContain("environments.prod.account: is required for a retained environment");
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
