/**
 * The bundle section of `npm run bench`: each function built with esbuild exactly as the CDK
 * construct builds it ({@link esbuildOptions} from infra/bundling.ts), its minified size, its
 * largest contributors (from esbuild's metafile), and its cold import time: the median of fresh
 * `node` processes that import the bundle with the environment a Lambda function would have, next
 * to the same for an empty module. For comparison each function is also measured with the AWS
 * SDK left to the runtime (the other side of the choice infra/bundling.ts documents) and without
 * `--enable-source-maps`, and the conversion pipeline's side bundle, which the first conversion
 * of an instance imports.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Metafile } from "esbuild";
import { BUNDLE_FILE_NAME, RENDER_DOCUMENT_BUNDLE, copyBundleDataFiles, esbuildOptions, renderDocumentEsbuildOptions } from "../../infra/bundling";
import { ENV } from "../../shared/config";
import { METRICS_NAMESPACE } from "../../shared/observability/metric-names";
import type { BenchSection } from "./bench-section";
import { runNodeChild } from "./node-child";
import { median } from "./quality";

export interface BundleBenchOptions {
  repoRoot: string;
  /** Where the bundles are written; must sit below `repoRoot` so externals resolve from its node_modules. */
  outDir: string;
  /** Fresh processes per bundle (issue 6: 10). */
  runs: number;
  progress?: (line: string) => void;
}

export interface BundleResult {
  name: string;
  /** Minified bundle size without the source map, in bytes. */
  bytes: number;
  /** The largest inputs grouped by package (or repository folder), bytes in the output. */
  top: Array<{ source: string; bytes: number }>;
  /** Median time of the `import()` inside a fresh process, in ms. */
  importMs: number;
  /** Median CPU time (user + system) the process spent in that `import()`, in ms. */
  importCpuMs: number;
  /** Median wall time of the whole process (spawn to exit), in ms. */
  processMs: number;
  importRunsMs: number[];
}

/** The 1-minute load average when the figures were taken (a noisy machine's wall times mean little). */
function loadAverage(): string {
  return loadavg()[0]!.toFixed(1);
}

/** issue 6's limits. */
export const BUNDLE_TARGETS = { maxKb: 600, maxImportOverEmptyMs: 80 } as const;

interface Variant {
  name: string;
  route: "fetch" | "search" | "mcp" | null;
  /** Added to the shared externals (the SDK-external comparison). */
  external?: string[];
  /** Runs without NODE_OPTIONS=--enable-source-maps (comparison). */
  noSourceMaps?: boolean;
  /** The conversion pipeline's side bundle (render-document.mjs) instead of the route's index.mjs: what the first conversion adds. */
  pipeline?: boolean;
}

const SDK_EXTERNAL = ["@aws-sdk/*", "@smithy/*"];

const VARIANTS: Variant[] = [
  { name: "fetch", route: "fetch" },
  { name: "search", route: "search" },
  { name: "mcp", route: "mcp" },
  { name: "fetch, SDK from the runtime (comparison)", route: "fetch", external: SDK_EXTERNAL },
  { name: "search, SDK from the runtime (comparison)", route: "search", external: SDK_EXTERNAL },
  { name: "fetch, no --enable-source-maps (comparison)", route: "fetch", noSourceMaps: true },
  { name: "search, no --enable-source-maps (comparison)", route: "search", noSourceMaps: true },
  { name: "fetch's conversion pipeline, imported on the first conversion", route: "fetch", pipeline: true },
  { name: "empty module", route: null },
];

/** Groups a metafile output's inputs by npm package (or the repository's top-level folder). */
export function topContributors(inputs: Metafile["outputs"][string]["inputs"], limit: number): Array<{ source: string; bytes: number }> {
  const totals = new Map<string, number>();
  for (const [file, { bytesInOutput }] of Object.entries(inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    const source = pkg ? pkg[1]! : file.split("/").slice(0, 2).join("/");
    totals.set(source, (totals.get(source) ?? 0) + bytesInOutput);
  }
  return [...totals.entries()]
    .map(([source, bytes]) => ({ source, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, limit);
}

/** The environment the deployed function has (infra/webgate-stack.ts and Lambda's own variables). */
export function lambdaEnv(route: Variant["route"], taskRoot: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: "en_US.UTF-8",
    TZ: ":UTC",
    AWS_REGION: "eu-west-1",
    AWS_DEFAULT_REGION: "eu-west-1",
    AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
    AWS_LAMBDA_FUNCTION_NAME: `webgate-dev-${route ?? "empty"}`,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: "1024",
    LAMBDA_TASK_ROOT: taskRoot,
    NODE_OPTIONS: "--enable-source-maps",
    POWERTOOLS_SERVICE_NAME: `webgate-${route ?? "empty"}`,
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    // Node 20 here; the SDK would print a support warning that Lambda's Node 22 never shows.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  };
  if (route === "fetch" || route === "mcp") {
    Object.assign(env, {
      [ENV.TABLE_NAME]: "webgate-dev-pages",
      [ENV.FETCH_TIMEOUT_MS]: "25000",
      [ENV.MAX_RESPONSE_BYTES]: "5242880",
      [ENV.MAX_REDIRECTS]: "5",
      [ENV.CACHE_TTL_S]: "3600",
      [ENV.ALLOWED_DOMAINS]: "",
      [ENV.BLOCKED_DOMAINS]: "",
    });
  }
  if (route === "search" || route === "mcp") env[ENV.PROVIDER_SECRET_ARN] = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:webgate-dev-providers-AbCdEf";
  return env;
}

/**
 * One fresh `node` that imports `file`: the import's own wall time, the CPU time the process spent
 * in it (user + system, every thread: compile, GC helpers), and the process's wall time. On a
 * machine shared with other work the wall times grow with the load; the CPU time much less, so
 * it is the figure to compare two builds by when the machine is not idle.
 */
export async function coldImport(file: string, env: Record<string, string>): Promise<{ importMs: number; importCpuMs: number; processMs: number }> {
  const code = `const c0 = process.cpuUsage(); const t0 = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); const t1 = performance.now(); const c = process.cpuUsage(c0); process.stdout.write(JSON.stringify([t1 - t0, (c.user + c.system) / 1000]));`;
  const run = await runNodeChild({
    args: ["--input-type=module", "-e", code],
    env,
    label: `importing ${file}`,
    read: (out) => {
      let figures: unknown;
      try {
        figures = JSON.parse(out);
      } catch {
        return undefined;
      }
      const [importMs, importCpuMs] = Array.isArray(figures) ? (figures as unknown[]).map(Number) : [];
      return Number.isFinite(importMs) && Number.isFinite(importCpuMs) ? { importMs: importMs!, importCpuMs: importCpuMs! } : undefined;
    },
    quote: { stderr: 500 },
  });
  return { ...run.value, processMs: run.wallMs };
}

/** Builds and measures every variant; returns the bench section and the raw results. */
export async function benchBundles(options: BundleBenchOptions): Promise<{ section: BenchSection; results: BundleResult[] }> {
  const progress = options.progress ?? (() => undefined);
  const built: Array<{ variant: Variant; outfile: string; env: Record<string, string>; bytes: number; top: BundleResult["top"] }> = [];
  for (const variant of VARIANTS) {
    const dir = path.join(options.outDir, variant.name.replace(/[^a-z0-9]+/gi, "-").replace(/-$/, ""));
    const outfile = path.join(dir, variant.pipeline ? RENDER_DOCUMENT_BUNDLE.outFile : BUNDLE_FILE_NAME);
    let bytes = 0;
    let top: BundleResult["top"] = [];
    if (variant.pipeline) {
      const result = await build({ ...renderDocumentEsbuildOptions(options.repoRoot, dir), metafile: true, logLevel: "warning" });
      copyBundleDataFiles(options.repoRoot, dir);
      const output = Object.entries(result.metafile.outputs).find(([name]) => name.endsWith(RENDER_DOCUMENT_BUNDLE.outFile))![1];
      bytes = output.bytes;
      top = topContributors(output.inputs, 8);
    } else if (variant.route === null) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(outfile, "export const handler = async () => ({ statusCode: 200, body: '' });\n");
    } else {
      const base = esbuildOptions(path.join(options.repoRoot, "functions", variant.route, "handler.ts"), outfile, options.repoRoot);
      const result = await build({ ...base, ...(variant.external ? { external: [...(base.external ?? []), ...variant.external] } : {}), metafile: true, logLevel: "warning" });
      copyBundleDataFiles(options.repoRoot, dir);
      const output = Object.entries(result.metafile.outputs).find(([name]) => name.endsWith(BUNDLE_FILE_NAME))![1];
      bytes = output.bytes;
      top = topContributors(output.inputs, 8);
    }
    const env = lambdaEnv(variant.route, dir);
    if (variant.noSourceMaps) delete env.NODE_OPTIONS;
    built.push({ variant, outfile, env, bytes, top });
  }
  // Rounds: every variant once per round, so a change in machine load hits all of them alike.
  const runs = built.map(() => [] as Array<{ importMs: number; importCpuMs: number; processMs: number }>);
  for (let round = 0; round < options.runs; round++) {
    for (const [i, b] of built.entries()) runs[i]!.push(await coldImport(b.outfile, b.env));
  }
  const results: BundleResult[] = built.map((b, i) => {
    const result: BundleResult = {
      name: b.variant.name,
      bytes: b.bytes,
      top: b.top,
      importMs: median(runs[i]!.map((r) => r.importMs)),
      importCpuMs: median(runs[i]!.map((r) => r.importCpuMs)),
      processMs: median(runs[i]!.map((r) => r.processMs)),
      importRunsMs: runs[i]!.map((r) => r.importMs),
    };
    progress(`  bundle ${result.name}: ${(result.bytes / 1024).toFixed(0)} KB, import ${result.importMs.toFixed(0)} ms`);
    return result;
  });

  const empty = results.find((r) => r.name === "empty module")!;
  const deployed = results.filter((r) => r.name === "fetch" || r.name === "search" || r.name === "mcp");
  const kb = (b: number) => (b / 1024).toFixed(0);
  const notes = [
    ...deployed.map((r) => {
      const over = r.importMs - empty.importMs;
      const sizeOk = r.bytes / 1024 <= BUNDLE_TARGETS.maxKb;
      const importOk = over <= BUNDLE_TARGETS.maxImportOverEmptyMs;
      return `target ${r.name}: <= ${BUNDLE_TARGETS.maxKb} KB: ${kb(r.bytes)} KB (${sizeOk ? "met" : `NOT met, ${kb(r.bytes - BUNDLE_TARGETS.maxKb * 1024)} KB over`}); import <= empty + ${BUNDLE_TARGETS.maxImportOverEmptyMs} ms: empty + ${over.toFixed(0)} ms (${importOk ? "met" : "NOT met"})`;
    }),
    ...deployed.map((r) => `largest in ${r.name} (KB): ${r.top.map((t) => `${t.source} ${kb(t.bytes)}`).join(", ")}`),
    `cold import: median of ${options.runs} fresh node ${process.version} processes with a Lambda-like environment (NODE_OPTIONS=--enable-source-maps), variants interleaved round by round; "SDK from the runtime" loads the SDK from node_modules at import, as Lambda loads its own copy`,
    `"conversion pipeline": ${RENDER_DOCUMENT_BUNDLE.outFile}, which the fetch and MCP functions import on their first conversion (a cache hit, a refusal or a PDF needs none), imported alone in a fresh process: with the Node modules the function has already loaded, so an upper bound of what the first conversion adds`,
    `import CPU: user + system time of the process during the import (all threads); on a loaded machine (load average ${loadAverage()}) compare builds by it, the targets are wall times on an idle machine`,
  ];
  return {
    results,
    section: {
      title: "Function bundles as the CDK builds them (infra/bundling.ts)",
      columns: ["bundle", "minified KB", "cold import ms (median)", "import - empty ms", "import CPU ms (median)", "CPU - empty ms", "process wall ms (median)"],
      rows: results.map((r) => [
        r.name,
        r.name === "empty module" ? "-" : kb(r.bytes),
        r.importMs.toFixed(1),
        r.name === "empty module" ? "0" : (r.importMs - empty.importMs).toFixed(1),
        r.importCpuMs.toFixed(1),
        r.name === "empty module" ? "0" : (r.importCpuMs - empty.importCpuMs).toFixed(1),
        r.processMs.toFixed(0),
      ]),
      notes,
      data: { runs: options.runs, targets: BUNDLE_TARGETS, results },
    },
  };
}
