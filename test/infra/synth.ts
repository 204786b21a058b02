/**
 * Test helper: synthesizes a webgate environment once per process (bundling off) with the
 * policy checks of every synth (cdk-nag AwsSolutions, cfn-guard Control Tower rules), from the
 * real cdk.json context.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { App, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { Template } from "aws-cdk-lib/assertions";
import { resolveEnvironment } from "../../infra/environments";
import { addPolicyValidation } from "../../infra/policy-validation";
import { REPO_ROOT, WebgateStack } from "../../infra/webgate-stack";

/** cdk.json's context, as the CLI would pass it. */
export const CDK_CONTEXT = (JSON.parse(readFileSync(path.join(REPO_ROOT, "cdk.json"), "utf8")) as { context: Record<string, unknown> }).context;

/**
 * NodejsFunction requires the entry files to exist (under the project root) even when bundling
 * is skipped. Bundling is not under test here, so the synth points at two empty entry files in
 * a temporary directory inside the git-ignored cdk.out/.
 */
export function entryStubs(): string {
  // A fixed path written with the same bytes by every worker, so parallel test files agree and
  // nothing piles up between runs.
  const dir = path.join(REPO_ROOT, "cdk.out", "test-entries");
  for (const route of ["fetch", "search", "render", "mcp"]) {
    mkdirSync(path.join(dir, route), { recursive: true });
    writeFileSync(path.join(dir, route, "handler.ts"), "export const handler = () => undefined;\n");
  }
  return dir;
}

/** CloudFormation properties: untyped JSON that the tests walk into freely. */
export type Props = Record<string, any>;

export interface Synthesized {
  stack: WebgateStack;
  template: Template;
  /** The CloudFormation template as JSON. */
  json: { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>; Outputs: Record<string, { Value: unknown }> };
  /** Violations the validation plugins (cdk-nag, cfn-guard) reported, warnings included; [] when clean. */
  violations: unknown[];
  /**
   * The context lookups the synth left for the CLI (the cloud assembly's `missing`): the CLI
   * makes them with AWS credentials, so `npm run synth` offline fails on any of them.
   */
  missing: unknown[];
}

const cache = new Map<string, Synthesized>();
let stubs: string | undefined;

/**
 * Synthesizes `envName` from cdk.json (memoized per process), or with a different
 * `environments` table (a variant of cdk.json's), memoized under `variant`. cdk-nag runs on
 * every synth; `policies: "all"` adds cfn-guard as the real synth runs it (infra/app.ts). The
 * guard binary costs about 3 s of CPU per template, so one test file asks for it.
 */
export function synth(envName: string, variant?: { key: string; environments: Record<string, unknown> }, options: { policies?: "nag" | "all" } = {}): Synthesized {
  const policies = options.policies ?? "nag";
  const cacheKey = `${variant ? `${envName}/${variant.key}` : envName}/${policies}`;
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  stubs ??= entryStubs();
  const environments = variant?.environments ?? CDK_CONTEXT.environments;
  const app = new App({ context: { ...CDK_CONTEXT, environments, env: envName, "aws:cdk:bundling-stacks": [] } });
  const { name, settings } = resolveEnvironment(app.node.tryGetContext("env"), app.node.tryGetContext("environments"));
  const stack = new WebgateStack(app, `webgate-${name}`, { envName: name, settings, functionsDir: stubs });
  if (policies === "all") addPolicyValidation(app);
  else Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  // A violation makes synth throw ValidationFailed with the report; a clean synth writes an
  // empty report. Both are checked so that warnings, which may not throw, are seen too.
  const assembly = app.synth();
  const report = JSON.parse(readFileSync(path.join(app.outdir, "validation-report.json"), "utf8")) as { pluginReports: Array<{ violations?: unknown[] }> };
  const violations = report.pluginReports.flatMap((r) => r.violations ?? []);
  const template = Template.fromStack(stack);
  const result = { stack, template, json: template.toJSON() as Synthesized["json"], violations, missing: assembly.manifest.missing ?? [] };
  cache.set(cacheKey, result);
  return result;
}

/** The resources of one type in a synthesized template, with their logical ids. */
export function resourcesOf(s: Synthesized, type: string): Array<{ id: string; props: Props }> {
  return Object.entries(s.json.Resources)
    .filter(([, r]) => r.Type === type)
    .map(([id, r]) => ({ id, props: r.Properties ?? {} }));
}
