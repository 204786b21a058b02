/**
 * The render function's asset as `cdk synth` builds it, for real (local esbuild, then `npm ci`
 * of RENDER_NODE_MODULES into the asset, offline from npm's cache): the handler bundle leaves
 * Chromium and puppeteer-core to the installed packages, the packages are the pinned versions
 * with the Chromium binary in them and no development packages beside them, the whole fits
 * Lambda's unzipped limit, and the handler loads from the asset and answers.
 *
 * One synth of one function (no cdk-nag, no other function), so the test costs one esbuild run
 * and one `npm ci`.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import * as lambda from "aws-cdk-lib/aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLE_FILE_NAME } from "../../infra/bundling";
import { RENDER_NODE_MODULES, REPO_ROOT } from "../../infra/webgate-stack";
import { CPU_WORK_TIMEOUT_MS } from "../helpers/cpu-work";
import { synthFunctionAsset } from "../helpers/function-asset";
import { readMarkedLine, runNodeChild } from "../../scripts/lib/node-child";

/** Lambda's limit on a function's unzipped deployment package. */
const LAMBDA_UNZIPPED_LIMIT_BYTES = 250 * 1024 * 1024;

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

let outdir: string;
let asset: string;

beforeAll(() => {
  outdir = mkdtempSync(path.join(os.tmpdir(), "webgate-render-asset-"));
  // As infra/webgate-stack.ts declares the render function (the bundling-relevant props).
  asset = synthFunctionAsset(outdir, {
    entry: path.join(REPO_ROOT, "functions/render/handler.ts"),
    serviceName: "webgate-render",
    memoryMb: 2_048,
    timeoutS: 28,
    architecture: lambda.Architecture.X86_64,
    nodeModules: [...RENDER_NODE_MODULES],
  });
}, CPU_WORK_TIMEOUT_MS);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += sizeOf(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

/** Runs the asset's handler on `event` in a fresh Node process with a Lambda-like environment, from the asset directory. */
async function invokeAsset(event: unknown): Promise<unknown> {
  const code = `const { handler } = await import(${JSON.stringify(pathToFileURL(path.join(asset, BUNDLE_FILE_NAME)).href)});
const result = await handler(JSON.parse(process.env.EVENT), { awsRequestId: "req-1", getRemainingTimeInMillis: () => 20000 });
process.stdout.write("\\nRESULT " + JSON.stringify(result) + "\\n");
process.exit(0);`;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    AWS_REGION: "eu-west-1",
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    POWERTOOLS_SERVICE_NAME: "webgate-render",
    POWERTOOLS_METRICS_NAMESPACE: "Webgate",
    NODE_OPTIONS: "--enable-source-maps",
    EVENT: JSON.stringify(event),
  };
  // cwd is a directory without node_modules: every package must come from the asset itself.
  const run = await runNodeChild({
    args: ["--input-type=module", "-e", code],
    env,
    cwd: os.tmpdir(),
    label: "the asset's handler",
    read: (out) => readMarkedLine(out, "RESULT"),
    quote: { stderr: 800, stdout: 400 },
  });
  return run.value;
}

describe("the render function's asset, synthesized", () => {
  it("bundles the handler and leaves Chromium and puppeteer-core to the installed packages", () => {
    const code = readFileSync(path.join(asset, BUNDLE_FILE_NAME), "utf8");
    for (const name of RENDER_NODE_MODULES) expect(code, name).toMatch(new RegExp(`from\\s*"${name.replace("/", "\\/")}"`));
    // puppeteer-core's own code is not in the bundle (its CDP connection class is).
    expect(code).not.toContain("class CdpBrowser");
    expect(statSync(path.join(asset, BUNDLE_FILE_NAME)).size).toBeLessThan(1024 * 1024);
  });

  it("installs exactly the pinned versions, with the Chromium binary, and no development packages", () => {
    expect(JSON.parse(readFileSync(path.join(asset, "package.json"), "utf8"))).toEqual({
      dependencies: Object.fromEntries(RENDER_NODE_MODULES.map((name) => [name, pkg.dependencies[name]])),
    });
    for (const name of RENDER_NODE_MODULES) {
      const installed = JSON.parse(readFileSync(path.join(asset, "node_modules", name, "package.json"), "utf8")) as { version: string };
      expect(installed.version, name).toBe(pkg.dependencies[name]);
    }
    const bin = path.join(asset, "node_modules/@sparticuz/chromium/bin");
    for (const file of ["chromium.br", "al2023.tar.br", "fonts.tar.br"]) expect(statSync(path.join(bin, file)).size, file).toBeGreaterThan(10_000);
    // (Type packages are left out: puppeteer-core's dependencies pull @types/node in, at no cost.)
    for (const dev of Object.keys(pkg.devDependencies).filter((name) => !name.startsWith("@types/"))) {
      expect(existsSync(path.join(asset, "node_modules", dev)), dev).toBe(false);
    }
    // Nothing the handler bundle already holds is installed a second time.
    for (const bundled of ["zod", "@aws-sdk/client-lambda", "@aws-lambda-powertools/logger"]) expect(existsSync(path.join(asset, "node_modules", bundled)), bundled).toBe(false);
  });

  it("fits Lambda's unzipped package limit", () => {
    expect(sizeOf(asset)).toBeLessThan(LAMBDA_UNZIPPED_LIMIT_BYTES);
  });

  it("loads from the asset and answers, a refused URL and a malformed request, without starting a browser", async () => {
    expect(await invokeAsset({ url: "http://169.254.169.254/latest/meta-data/", waitMs: 0, timeoutMs: 1_000 })).toMatchObject({
      ok: false,
      error: { code: "address_not_allowed", details: { reason: "link-local" } },
    });
    expect(await invokeAsset({ url: "https://example.com/", waitMs: "soon" })).toMatchObject({ ok: false, error: { code: "invalid_request" } });
  }, CPU_WORK_TIMEOUT_MS);
});
