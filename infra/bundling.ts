/**
 * How every webgate Lambda function is bundled: one description that the CDK construct
 * ({@link ApiFunction}) turns into NodejsFunction `bundling` props and that `npm run bench` turns
 * into esbuild JS API options, so the bundle the bench measures is the bundle CDK deploys.
 *
 * Nothing of aws-cdk-lib here (and esbuild's types only): the bench loads this file without loading either.
 */
import { cpSync } from "node:fs";
import path from "node:path";
import type { BuildOptions } from "esbuild";

/**
 * Data that a dependency loads with `require()` on first use, shipped as a file beside
 * `index.mjs` instead of inside it. esbuild leaves the request external (matched as the
 * dependency writes it, before resolution) and the bundle's `require` (the banner's, made for
 * `import.meta.url`) finds the file in the function's directory. The one entry: @exodus/bytes's
 * tables of the CJK encodings (Shift_JIS, EUC-JP, ISO-2022-JP, EUC-KR, gb18030, GBK, Big5), 147 KB,
 * a third of the minified fetch function until 2026-12-01, which every cold start read, compiled
 * and scanned for the source map although a page in those encodings is rare; the first such page
 * now reads the file. Every function's asset gets the files ({@link bundleDataFileCommands});
 * the bench and the tests copy them with {@link copyBundleDataFiles}.
 */
export const BUNDLE_DATA_FILES = [
  { request: "./multi-byte.encodings.json", source: "node_modules/@exodus/bytes/fallback/multi-byte.encodings.json" },
] as const;

/**
 * The bundling settings. NodejsFunction passes each to the esbuild CLI as
 * `--minify --sourcemap --sources-content=false --target=… --format=… --main-fields=…
 * --banner:js=… --external:…` with `--platform=node --bundle` (aws-cdk-lib 2.276
 * `Bundling.buildEsbuildArgs`); {@link esbuildOptions} mirrors exactly that.
 */
export const FUNCTION_BUNDLING = {
  minify: true,
  sourceMap: true,
  // Source contents stay out of the map: smaller asset, stack traces still resolve.
  sourcesContent: false,
  target: "node22",
  // The repo is "type": "module"; an ESM bundle (.mjs) tree-shakes best. Some CommonJS
  // dependencies call require() at run time, which ESM lacks: the banner recreates it.
  format: "esm",
  mainFields: ["module", "main"],
  banner: "import { createRequire as __wgCreateRequire } from 'node:module'; const require = __wgCreateRequire(import.meta.url);",
  // The AWS SDK v3 is bundled, not taken from the Lambda runtime (CDK's default for Node.js 22
  // would mark `@aws-sdk/*` external). Measured both ways with `npm run bench -- --only bundle`
  // (README, Performance): external saves ~330 KB (fetch) and ~300 KB (search) of bundle, but
  // every cold start then loads the runtime's unbundled SDK from disk (dozens of CommonJS files,
  // plus Node's CommonJS export scan for the ESM import), which made the import 20-35 ms slower
  // than parsing the minified, tree-shaken copy. Bundled, the version is the one the tests ran
  // against (3.1164), instead of whatever the runtime ships that month. The only externals are
  // files that ship beside the bundle: the data files ({@link BUNDLE_DATA_FILES}) and the Lambda
  // client's own bundle ({@link LAMBDA_CLIENT_BUNDLE}) and the conversion pipeline's
  // ({@link RENDER_DOCUMENT_BUNDLE}).
  externalModules: [...BUNDLE_DATA_FILES.map((file) => file.request), "./lambda-client.mjs", "./render-document.mjs"] as string[],
  // Modules a dependency loads but webgate never runs, replaced by a stub that throws
  // (infra/bundle-stubs/unused-module.ts says why each is unused): 230 KB of domino, and its
  // start-up work at every cold start. The AWS SDK's credential sources that a Lambda function
  // never uses (SSO, config files, credential_process, web identity: the execution role's
  // credentials are in the environment) go to unused-credential-providers.ts, which refuses the
  // way an inapplicable source does: ~100 KB (with the STS/SSO clients they carry) less to compile
  // in every bundle. Paths are relative to the
  // project root, where NodejsFunction runs esbuild. Tests and `npm start` run unbundled, with
  // the real modules; test/infra/bundling.test.ts converts pages through a bundle built this way
  // and compares the Markdown with the unbundled pipeline's, and resolves credentials through the
  // bundled chain.
  alias: {
    "@mixmark-io/domino": "./infra/bundle-stubs/unused-module.ts",
    "@aws-sdk/credential-provider-sso": "./infra/bundle-stubs/unused-credential-providers.ts",
    "@aws-sdk/credential-provider-ini": "./infra/bundle-stubs/unused-credential-providers.ts",
    "@aws-sdk/credential-provider-process": "./infra/bundle-stubs/unused-credential-providers.ts",
    "@aws-sdk/credential-provider-web-identity": "./infra/bundle-stubs/unused-credential-providers.ts",
    // The Lambda client (the fetch and MCP functions invoke the render function with it) is a
    // bundle of its own beside index.mjs, imported on the first render: LAMBDA_CLIENT_BUNDLE.
    "@aws-sdk/client-lambda": "./infra/bundle-stubs/lambda-client-loader.ts",
    // The conversion pipeline (shared/content/render.ts, which converter.ts imports by this
    // name) is a bundle of its own beside index.mjs, imported on the first conversion:
    // RENDER_DOCUMENT_BUNDLE.
    "#render-document": "./infra/bundle-stubs/render-document-loader.ts",
  },
} as const;

/** Where a data file goes in the function's directory: the name its request asks for. */
function dataFileName(file: (typeof BUNDLE_DATA_FILES)[number]): string {
  return path.posix.basename(file.request);
}

/** Shell commands (run by NodejsFunction in the project root) that put {@link BUNDLE_DATA_FILES} in an asset. */
export function bundleDataFileCommands(inputDir: string, outputDir: string): string[] {
  return BUNDLE_DATA_FILES.map((file) => `cp ${shellQuote(`${inputDir}/${file.source}`)} ${shellQuote(`${outputDir}/${dataFileName(file)}`)}`);
}

/** Copies {@link BUNDLE_DATA_FILES} beside a bundle built with {@link esbuildOptions} into `outDir`. */
export function copyBundleDataFiles(projectRoot: string, outDir: string): void {
  for (const file of BUNDLE_DATA_FILES) cpSync(path.join(projectRoot, file.source), path.join(outDir, dataFileName(file)));
}

/** `s` as one single-quoted shell word. */
function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** The file name NodejsFunction gives the bundle for {@link FUNCTION_BUNDLING}'s format. */
export const BUNDLE_FILE_NAME = FUNCTION_BUNDLING.format === "esm" ? "index.mjs" : "index.js";

/**
 * esbuild JS API options equal to what NodejsFunction runs for `entry` with
 * {@link FUNCTION_BUNDLING} (the CLI runs in `projectRoot`, the lockfile's directory).
 */
export function esbuildOptions(entry: string, outfile: string, projectRoot: string): BuildOptions {
  const b = FUNCTION_BUNDLING;
  return {
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    target: b.target,
    format: b.format,
    outfile,
    minify: b.minify,
    sourcemap: b.sourceMap,
    sourcesContent: b.sourcesContent,
    external: [...b.externalModules],
    mainFields: [...b.mainFields],
    banner: { js: b.banner },
    alias: { ...b.alias },
    absWorkingDir: projectRoot,
  };
}

/**
 * The PDF reader's worker thread (shared/content/pdf-worker.mjs, which loads pdf.js) is bundled
 * on its own beside the fetch function's index.mjs, with the same settings, and pdf.js's CMaps are
 * copied beside it: the handler's bundle holds no pdf.js code, so its cold start does not grow,
 * and the worker file is where shared/content/pdf.ts looks for it (`./pdf-worker.mjs` next to the
 * running module). NodejsFunction runs {@link pdfWorkerCommands} after its own esbuild step
 * (`commandHooks.afterBundling`); the bench and the tests build the same with {@link pdfWorkerEsbuildOptions}.
 */
export const PDF_WORKER_BUNDLE = {
  entry: "shared/content/pdf-worker.mjs",
  /** Must equal PDF_WORKER_FILE in shared/content/pdf.ts (a test checks). */
  outFile: "pdf-worker.mjs",
  cMapSource: "node_modules/pdfjs-dist/cmaps",
  /** Must equal PDF_CMAP_DIR in shared/content/pdf.ts (a test checks). */
  cMapDir: "pdf-cmaps",
} as const;

/** esbuild JS API options for the PDF worker bundle, written to `outDir`. */
export function pdfWorkerEsbuildOptions(projectRoot: string, outDir: string): BuildOptions {
  const b = FUNCTION_BUNDLING;
  return {
    entryPoints: [`${projectRoot}/${PDF_WORKER_BUNDLE.entry}`],
    bundle: true,
    platform: "node",
    target: b.target,
    format: b.format,
    outfile: `${outDir}/${PDF_WORKER_BUNDLE.outFile}`,
    minify: b.minify,
    sourcemap: b.sourceMap,
    sourcesContent: b.sourcesContent,
    mainFields: [...b.mainFields],
    banner: { js: b.banner },
    absWorkingDir: projectRoot,
  };
}

/**
 * The AWS SDK's Lambda client, bundled on its own with the same settings as the functions (the
 * credential sources left out included) into lambda-client.mjs beside index.mjs, for the
 * functions that invoke the render function (fetch and MCP: {@link readerSideFileCommands}).
 * Their bundles reach it through infra/bundle-stubs/lambda-client-loader.ts, which must name
 * the same file (a test checks). The client's generated code is 85 KB that esbuild keeps whole
 * (its schemas have computed keys, which esbuild cannot prove free of side effects), and only a
 * render needs it.
 */
export const LAMBDA_CLIENT_BUNDLE = {
  entry: "infra/bundle-stubs/lambda-client-entry.ts",
  outFile: "lambda-client.mjs",
} as const;

/** esbuild JS API options for the Lambda client bundle, written to `outDir`. */
export function lambdaClientEsbuildOptions(projectRoot: string, outDir: string): BuildOptions {
  const { external: _none, ...options } = esbuildOptions(`${projectRoot}/${LAMBDA_CLIENT_BUNDLE.entry}`, `${outDir}/${LAMBDA_CLIENT_BUNDLE.outFile}`, projectRoot);
  // The real package, not the loader that stands in for it in the functions' bundles.
  const { "@aws-sdk/client-lambda": _loader, ...alias } = FUNCTION_BUNDLING.alias;
  return { ...options, alias };
}

/**
 * /fetch's conversion pipeline (shared/content/render.ts and all that only it imports: the
 * decoders' tables, the main-content extractor, htmlparser2, turndown), bundled on its own with
 * the same settings into render-document.mjs beside index.mjs, for the functions that read pages
 * (fetch and MCP: {@link readerSideFileCommands}). Their bundles reach it through
 * infra/bundle-stubs/render-document-loader.ts, which must name the same file (a test checks).
 * A cold start that converts nothing (a cache hit, a refusal, a PDF) neither reads nor compiles
 * it; the first conversion of an instance does, once (~160 KB minified, which every cold start
 * compiled before).
 */
export const RENDER_DOCUMENT_BUNDLE = {
  entry: "infra/bundle-stubs/render-document-entry.ts",
  outFile: "render-document.mjs",
} as const;

/** The aliases of the side bundles: the functions' ones, the loaders that stand in for the side bundles left out. */
function sideBundleAlias(): Record<string, string> {
  const { "@aws-sdk/client-lambda": _lambdaLoader, "#render-document": _renderLoader, ...alias } = FUNCTION_BUNDLING.alias;
  return alias;
}

/** esbuild JS API options for the conversion pipeline's bundle, written to `outDir`. */
export function renderDocumentEsbuildOptions(projectRoot: string, outDir: string): BuildOptions {
  return { ...esbuildOptions(`${projectRoot}/${RENDER_DOCUMENT_BUNDLE.entry}`, `${outDir}/${RENDER_DOCUMENT_BUNDLE.outFile}`, projectRoot), alias: sideBundleAlias() };
}

/** Shell commands (run by NodejsFunction in the project root) that build the conversion pipeline's bundle into an asset. */
export function renderDocumentCommands(inputDir: string, outputDir: string): string[] {
  return [sideBundleCommand(inputDir, outputDir, RENDER_DOCUMENT_BUNDLE.entry, RENDER_DOCUMENT_BUNDLE.outFile, sideBundleAlias(), FUNCTION_BUNDLING.externalModules)];
}

/**
 * The esbuild CLI command (run by NodejsFunction in the project root) that bundles `entry` into
 * `outputDir/outFile` with {@link FUNCTION_BUNDLING}'s settings and the given aliases: what
 * NodejsFunction itself runs for a function, for the side bundles beside index.mjs.
 */
function sideBundleCommand(inputDir: string, outputDir: string, entry: string, outFile: string, alias: Readonly<Record<string, string>>, external: readonly string[] = []): string {
  const b = FUNCTION_BUNDLING;
  return [
    shellQuote(`${inputDir}/node_modules/.bin/esbuild`),
    "--bundle",
    shellQuote(`${inputDir}/${entry}`),
    `--target=${b.target}`,
    "--platform=node",
    `--format=${b.format}`,
    shellQuote(`--outfile=${outputDir}/${outFile}`),
    ...(b.minify ? ["--minify"] : []),
    ...(b.sourceMap ? ["--sourcemap"] : []),
    ...(b.sourcesContent ? [] : ["--sources-content=false"]),
    `--main-fields=${b.mainFields.join(",")}`,
    shellQuote(`--banner:js=${b.banner}`),
    ...Object.entries(alias).map(([from, to]) => shellQuote(`--alias:${from}=${to}`)),
    ...external.map((request) => shellQuote(`--external:${request}`)),
    "--log-level=warning",
  ].join(" ");
}

/** Shell commands (run by NodejsFunction in the project root) that build the Lambda client bundle into an asset. */
export function lambdaClientCommands(inputDir: string, outputDir: string): string[] {
  // The real package, not the loader that stands in for it in the functions' bundles.
  const { "@aws-sdk/client-lambda": _loader, ...alias } = FUNCTION_BUNDLING.alias;
  return [sideBundleCommand(inputDir, outputDir, LAMBDA_CLIENT_BUNDLE.entry, LAMBDA_CLIENT_BUNDLE.outFile, alias)];
}

/**
 * What the functions that read pages (fetch and MCP) add to their assets after bundling: the PDF
 * worker with pdf.js's CMaps, the Lambda client bundle and the conversion pipeline's bundle.
 */
export function readerSideFileCommands(inputDir: string, outputDir: string): string[] {
  return [...pdfWorkerCommands(inputDir, outputDir), ...lambdaClientCommands(inputDir, outputDir), ...renderDocumentCommands(inputDir, outputDir)];
}

/** Shell commands (run by NodejsFunction in the project root) that add the PDF worker to an asset. */
export function pdfWorkerCommands(inputDir: string, outputDir: string): string[] {
  const esbuild = sideBundleCommand(inputDir, outputDir, PDF_WORKER_BUNDLE.entry, PDF_WORKER_BUNDLE.outFile, {});
  return [
    esbuild,
    `mkdir -p ${shellQuote(`${outputDir}/${PDF_WORKER_BUNDLE.cMapDir}`)}`,
    `cp ${shellQuote(`${inputDir}/${PDF_WORKER_BUNDLE.cMapSource}`)}/*.bcmap ${shellQuote(`${outputDir}/${PDF_WORKER_BUNDLE.cMapDir}/`)}`,
  ];
}
