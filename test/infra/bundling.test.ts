import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync, fork } from "node:child_process";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Metafile } from "esbuild";
import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import {
  BUNDLE_DATA_FILES,
  BUNDLE_FILE_NAME,
  FUNCTION_BUNDLING,
  LAMBDA_CLIENT_BUNDLE,
  PDF_WORKER_BUNDLE,
  RENDER_DOCUMENT_BUNDLE,
  copyBundleDataFiles,
  esbuildOptions,
  lambdaClientEsbuildOptions,
  pdfWorkerEsbuildOptions,
  readerSideFileCommands,
  renderDocumentEsbuildOptions,
} from "../../infra/bundling";
import { REPO_ROOT } from "../../infra/webgate-stack";
import { generateArticleHtml } from "../../scripts/lib/article-html";
import { renderDocument, type RenderInput, type RenderedDocument } from "../../shared/content/render";
import { inProcessConverter, type ConversionInput } from "../../shared/content/converter";
import { isWebgateError } from "../../shared/errors";
import { PDF_CMAP_DIR, PDF_WORKER_FILE, type readPdf } from "../../shared/content/pdf";
import * as credentialStubs from "../../infra/bundle-stubs/unused-credential-providers";
import { CPU_WORK_TIMEOUT_MS } from "../helpers/cpu-work";
import { startLambdaStandIn } from "../helpers/lambda-stand-in";
import { encodeRenderResult, type RenderedPage } from "../../shared/render/renderer";
import { synthFunctionAsset } from "../helpers/function-asset";
import { bodyLines, textPdf } from "../helpers/pdf-fixtures";

/**
 * The fetch handler's bundle, built once for the tests that read it (a bundle with the AWS SDK
 * costs seconds of CPU): in memory, with its metafile, without a source map.
 */
let fetchBundle: ReturnType<typeof build<{ write: false; metafile: true }>> | undefined;
function buildFetchHandler() {
  fetchBundle ??= build({
    ...esbuildOptions(path.join(REPO_ROOT, "functions/fetch/handler.ts"), path.join(REPO_ROOT, "cdk.out/test-bundle/index.mjs"), REPO_ROOT),
    write: false,
    metafile: true,
    sourcemap: false,
    logLevel: "silent",
  });
  return fetchBundle;
}

describe("function bundling", () => {
  it("maps the shared description onto esbuild options as NodejsFunction's CLI flags do", () => {
    const options = esbuildOptions("/src/handler.ts", "/out/index.mjs", "/src");
    expect(options).toMatchObject({
      entryPoints: ["/src/handler.ts"],
      outfile: "/out/index.mjs",
      absWorkingDir: "/src",
      bundle: true,
      platform: "node",
      target: "node22",
      format: "esm",
      minify: true,
      sourcemap: true,
      sourcesContent: false,
      mainFields: ["module", "main"],
      banner: { js: FUNCTION_BUNDLING.banner },
      alias: {
        "@mixmark-io/domino": "./infra/bundle-stubs/unused-module.ts",
        "@aws-sdk/credential-provider-sso": "./infra/bundle-stubs/unused-credential-providers.ts",
        "@aws-sdk/credential-provider-ini": "./infra/bundle-stubs/unused-credential-providers.ts",
        "@aws-sdk/credential-provider-process": "./infra/bundle-stubs/unused-credential-providers.ts",
        "@aws-sdk/credential-provider-web-identity": "./infra/bundle-stubs/unused-credential-providers.ts",
        "@aws-sdk/client-lambda": "./infra/bundle-stubs/lambda-client-loader.ts",
        "#render-document": "./infra/bundle-stubs/render-document-loader.ts",
      },
    });
    expect(options.external).toEqual(["./multi-byte.encodings.json", "./lambda-client.mjs", "./render-document.mjs"]);
    expect(BUNDLE_FILE_NAME).toBe("index.mjs");
  });

  it("bundles the pinned AWS SDK instead of importing the runtime's copy", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    const result = await buildFetchHandler();
    const code = result.outputFiles.find((f) => f.path.endsWith(".mjs"))!.text;
    expect(code).not.toMatch(/from\s*"@(aws-sdk|smithy)\//);
    // The DynamoDB client's JSON protocol target prefix lives in the SDK's own code.
    expect(code).toContain("DynamoDB_20120810");
    // The banner recreates require() for CommonJS dependencies inside the ESM bundle.
    expect(code.startsWith("import { createRequire as __wgCreateRequire }")).toBe(true);
  });

  it("converts pages through the bundled pipeline exactly as unbundled: the aliased modules are never reached", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    const outfile = path.join(REPO_ROOT, "cdk.out", "test-bundle", "render.mjs");
    const built = await build({ ...esbuildOptions(path.join(REPO_ROOT, "shared/content/render.ts"), outfile, REPO_ROOT), metafile: true, logLevel: "silent" });
    const inputs = Object.keys(built.metafile.inputs);
    // The stub replaced domino; linkedom (and its CSS parser) is not part of the runtime at all.
    expect(inputs.some((f) => f.includes("@mixmark-io/domino"))).toBe(false);
    expect(inputs.some((f) => f.includes("linkedom") || f.includes("cssomnom") || f.includes("@mozilla/readability"))).toBe(false);
    expect(inputs).toContain("infra/bundle-stubs/unused-module.ts");
    // The CJK tables are a file beside the bundle, read on the first page that needs them.
    expect(inputs.some((f) => f.endsWith("multi-byte.encodings.json"))).toBe(false);
    expect(readFileSync(outfile, "utf8")).toContain('"./multi-byte.encodings.json"');
    copyBundleDataFiles(REPO_ROOT, path.dirname(outfile));
    const bundled = (await import(`${pathToFileURL(outfile).href}?t=${Date.now()}`)) as { renderDocument(input: RenderInput): RenderedDocument };

    const pages = [
      readFileSync(path.join(REPO_ROOT, "test/fixtures/content/article.html")),
      Buffer.from(generateArticleHtml(40_000, 7)),
      // <style>, a table, a string-looking body: every path the stub sits on.
      Buffer.from("<html><head><style>p{color:red}</style><title>T</title></head><body><article><h1>Head</h1><p>One <b>two</b> three.</p><table><tr><th>a</th></tr><tr><td>1</td></tr></table><style>.x{}</style></article></body></html>"),
    ];
    for (const body of pages) {
      for (const mainContent of [true, false]) {
        const input = { body, contentType: "text/html; charset=utf-8", finalUrl: "https://example.com/a/page.html", mainContent };
        const expected = renderDocument(input);
        expect(expected.content.length).toBeGreaterThan(20);
        expect(bundled.renderDocument(input)).toEqual(expected);
      }
    }
    // Legacy encodings: the decoders' tables (@exodus/bytes) are bundled data or, for the CJK
    // encodings, the data file beside the bundle, loaded on first use.
    const article = "<html><head><title>T</title></head><body><article><h1>Head</h1><p>%s</p></article></body></html>";
    for (const [charset, text] of [
      ["Shift_JIS", "日本語のテキストです。"],
      ["EUC-KR", "한국어 텍스트입니다. 갂"],
      ["gb18030", "简体中文页面 𠀀"],
      ["Big5", "繁體中文 䏰"],
      ["windows-1252", "café – “quoted”"],
    ] as const) {
      const body = iconv.encode(article.replace("%s", text), charset);
      const input = { body, contentType: `text/html; charset=${charset}`, finalUrl: "https://example.com/a/page.html", mainContent: false };
      const expected = renderDocument(input);
      expect(expected).toMatchObject({ charset });
      expect(expected.content).toContain(text);
      expect(bundled.renderDocument(input)).toEqual(expected);
    }
  });

  it("resolves the execution role's credentials through the bundled chain; the sources left out refuse, never crash", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    // The fetch bundle keeps only the environment and metadata-endpoint sources of the chain.
    const inputs = Object.keys((await buildFetchHandler()).metafile.inputs);
    expect(inputs).toContain("infra/bundle-stubs/unused-credential-providers.ts");
    expect(inputs.some((f) => /node_modules\/@aws-sdk\/(nested-clients|credential-provider-(sso|ini|process|web-identity))\//.test(f))).toBe(false);
    expect(inputs.some((f) => f.includes("node_modules/@aws-sdk/credential-provider-env/"))).toBe(true);

    // The SDK's default chain, bundled with the functions' options, run in this process.
    const dir = mkdtempSync(path.join(REPO_ROOT, "cdk.out", "credentials-"));
    try {
      const entry = path.join(dir, "entry.ts");
      writeFileSync(entry, 'export { defaultProvider } from "@aws-sdk/credential-provider-node";\n');
      const outfile = path.join(dir, "index.mjs");
      await build({ ...esbuildOptions(entry, outfile, REPO_ROOT), sourcemap: false, logLevel: "silent" });
      const { defaultProvider } = (await import(pathToFileURL(outfile).href)) as { defaultProvider: () => () => Promise<{ accessKeyId: string }> };
      const saved = { ...process.env };
      try {
        // As Lambda sets them: the execution role's credentials in the environment.
        Object.assign(process.env, { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "secret", AWS_SESSION_TOKEN: "token" });
        delete process.env.AWS_PROFILE;
        await expect(defaultProvider()()).resolves.toMatchObject({ accessKeyId: "AKIDEXAMPLE" });
        // AWS_PROFILE makes the chain skip the environment: the stubbed sources refuse and the
        // chain ends in the SDK's own error (the metadata endpoints are switched off: no network).
        Object.assign(process.env, { AWS_PROFILE: "someone", AWS_EC2_METADATA_DISABLED: "true" });
        await expect(defaultProvider()()).rejects.toThrow("Could not load credentials from any providers");
      } finally {
        for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
        Object.assign(process.env, saved);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(Object.entries(credentialStubs))("the stubbed credential source %s refuses as an inapplicable source does", async (_name, source) => {
    await expect(source()()).rejects.toMatchObject({ name: "CredentialsProviderError", tryNextLink: true, message: expect.stringContaining("not part of the Lambda bundle") });
  });

  it("resolves one ajv for the MCP SDK and ajv-formats, so the MCP bundle carries one copy", () => {
    // eslint's ajv 6 would otherwise take node_modules/ajv and leave the SDK and ajv-formats a
    // nested ajv 8 each, which esbuild bundles twice (104 KB). webgate pins ajv 8 to hoist it.
    const require = createRequire(import.meta.url);
    const sdk = path.dirname(require.resolve("@modelcontextprotocol/sdk/package.json"));
    const formats = path.dirname(require.resolve("ajv-formats/package.json", { paths: [sdk] }));
    expect(require.resolve("ajv", { paths: [formats] })).toBe(require.resolve("ajv", { paths: [sdk] }));
  });

  it("carries no iconv-lite: legacy encodings decode with @exodus/bytes, in the conversion pipeline's bundle only", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    const fetchInputs = Object.keys((await buildFetchHandler()).metafile.inputs);
    const pipeline = await build({ ...renderDocumentEsbuildOptions(REPO_ROOT, mkdtempSync(path.join(os.tmpdir(), "webgate-pipeline-"))), write: false, metafile: true, logLevel: "silent" });
    const pipelineInputs = Object.keys(pipeline.metafile.inputs);
    for (const inputs of [fetchInputs, pipelineInputs]) {
      expect(inputs.some((f) => f.includes("node_modules/iconv-lite/") || f.includes("node_modules/whatwg-encoding/"))).toBe(false);
    }
    expect(pipelineInputs.some((f) => f.includes("node_modules/@exodus/bytes/"))).toBe(true);
    // The fetch path reads the media type (shared/content/content-type.ts) without the decoders:
    // they load with the first conversion, not in every cold start.
    expect(fetchInputs.some((f) => f.includes("node_modules/@exodus/bytes/") || f.includes("node_modules/html-encoding-sniffer/") || f === "shared/content/decode.ts")).toBe(false);
  });
});

describe("zod in the bundles", () => {
  /** The zod modules with code in a bundle's output (esbuild lists the modules it tree-shook away too), relative to node_modules/zod. */
  function zodInputs(built: Metafile): string[] {
    const output = Object.entries(built.outputs).find(([name]) => name.endsWith(".mjs"))![1];
    return Object.entries(output.inputs)
      .filter(([f, { bytesInOutput }]) => f.includes("node_modules/zod/") && bytesInOutput > 0)
      .map(([f]) => f.slice(f.indexOf("node_modules/zod/") + "node_modules/zod/".length));
  }

  it("keeps zod's classic API and every locale but English out of the fetch and search bundles", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    const search = await build({
      ...esbuildOptions(path.join(REPO_ROOT, "functions/search/handler.ts"), path.join(REPO_ROOT, "cdk.out/test-bundle-search/index.mjs"), REPO_ROOT),
      write: false,
      metafile: true,
      sourcemap: false,
      logLevel: "silent",
    });
    for (const built of [await buildFetchHandler(), search]) {
      const inputs = zodInputs(built.metafile);
      expect(inputs).toContain("v4/mini/schemas.js");
      expect(inputs.filter((f) => f.startsWith("v4/classic/"))).toEqual([]);
      expect(inputs.filter((f) => f.startsWith("v4/locales/"))).toEqual(["v4/locales/en.js"]);
    }
  });

  it("answers request errors with zod's English messages where classic zod, which registers them, is not loaded", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    const dir = mkdtempSync(path.join(REPO_ROOT, "cdk.out", "test-zod-"));
    try {
      const entry = path.join(dir, "entry.ts");
      const from = (file: string) => JSON.stringify(path.join(REPO_ROOT, file));
      writeFileSync(
        entry,
        [
          `import { validate } from ${from("shared/middleware/parse-request.ts")};`,
          `import { searchRequestSchema } from ${from("shared/search/schema.ts")};`,
          "const messages: string[] = [];",
          "for (const body of [{ query: 5 }, {}, { query: \"rivers\", provider: \"nope\" }]) {",
          "  try { validate(searchRequestSchema, body); } catch (error) { messages.push((error as Error).message); }",
          "}",
          "process.stdout.write(JSON.stringify(messages));",
        ].join("\n"),
      );
      const outfile = path.join(dir, "entry.mjs");
      const built = await build({ ...esbuildOptions(entry, outfile, REPO_ROOT), sourcemap: false, metafile: true, logLevel: "silent" });
      expect(zodInputs(built.metafile).filter((f) => f.startsWith("v4/classic/"))).toEqual([]);
      expect(JSON.parse(execFileSync(process.execPath, [outfile], { encoding: "utf8" }))).toEqual([
        'Field "query": Invalid input: expected string, received number',
        'Field "query": Invalid input: expected string, received undefined',
        'Field "provider": Invalid option: expected one of "brave"|"tavily"|"searxng"|"ollama"|"anthropic"',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the PDF reader in the bundle", () => {
  it("keeps pdf.js out of the fetch handler's bundle", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    const built = await buildFetchHandler();
    const inputs = Object.keys(built.metafile.inputs);
    expect(inputs).toContain("shared/content/pdf.ts");
    expect(inputs.some((f) => f.includes("pdfjs-dist"))).toBe(false);
  });

  it("names the worker file and CMap folder where pdf.ts looks for them", () => {
    expect(PDF_WORKER_BUNDLE.outFile).toBe(PDF_WORKER_FILE);
    expect(PDF_WORKER_BUNDLE.cMapDir).toBe(PDF_CMAP_DIR);
  });

  it("reads a PDF through the bundled pdf.ts and the separately bundled worker beside it", async () => {
    const dir = path.join(REPO_ROOT, "cdk.out", "test-bundle", "pdf");
    rmSync(dir, { recursive: true, force: true });
    await build({ ...esbuildOptions(path.join(REPO_ROOT, "shared/content/pdf.ts"), path.join(dir, "pdf.mjs"), REPO_ROOT), logLevel: "silent" });
    const worker = await build({ ...pdfWorkerEsbuildOptions(REPO_ROOT, dir), metafile: true, logLevel: "silent" });
    expect(Object.keys(worker.metafile.inputs).some((f) => f.includes("pdfjs-dist/legacy/build/pdf.worker.mjs"))).toBe(true);
    cpSync(path.join(REPO_ROOT, PDF_WORKER_BUNDLE.cMapSource), path.join(dir, PDF_WORKER_BUNDLE.cMapDir), { recursive: true });
    const bundled = (await import(`${pathToFileURL(path.join(dir, "pdf.mjs")).href}?t=${Date.now()}`)) as { readPdf: typeof readPdf };
    const result = await bundled.readPdf(await textPdf([{ lines: bodyLines(["Read through the bundles."]) }], { title: "Bundled" }), { maxPages: 5, timeoutMs: CPU_WORK_TIMEOUT_MS, format: "markdown" });
    expect(result).toMatchObject({ title: "Bundled", content: "<!-- page 1 -->\n\nRead through the bundles.\n", truncated: false });
  }, CPU_WORK_TIMEOUT_MS);
});

describe("the Lambda client beside the bundle", () => {
  const PAGE: RenderedPage = {
    url: "https://app.example.com/",
    finalUrl: "https://app.example.com/",
    redirects: [],
    status: 200,
    contentType: "text/html; charset=utf-8",
    body: Buffer.from("<html><body><h1>Rendered</h1></body></html>"),
    rendered: true,
    truncated: null,
    proxyBytes: 10,
    elapsedMs: 20,
  };

  /**
   * shared/render/lambda-renderer.ts bundled as the functions bundle it, in `dir`, with or without
   * the client bundle beside it, and a script that renders through it in a fresh `node` (vitest
   * would route the bundle's own `import()` through its module runner).
   */
  async function bundleRenderer(dir: string, withClient: boolean): Promise<string> {
    rmSync(dir, { recursive: true, force: true });
    const built = await build({ ...esbuildOptions(path.join(REPO_ROOT, "shared/render/lambda-renderer.ts"), path.join(dir, "renderer.mjs"), REPO_ROOT), metafile: true, logLevel: "silent" });
    const inputs = Object.keys(built.metafile.inputs);
    expect(inputs).toContain("infra/bundle-stubs/lambda-client-loader.ts");
    expect(inputs.some((f) => f.includes("node_modules/@aws-sdk/client-lambda/"))).toBe(false);
    if (withClient) {
      const client = await build({ ...lambdaClientEsbuildOptions(REPO_ROOT, dir), metafile: true, logLevel: "silent" });
      expect(Object.keys(client.metafile.inputs).some((f) => f.includes("node_modules/@aws-sdk/client-lambda/"))).toBe(true);
    }
    const script = path.join(dir, "render-once.mjs");
    writeFileSync(
      script,
      `import { createLambdaClient, createLambdaRenderer } from "./renderer.mjs";
const deadline = new AbortController();
process.on("message", () => deadline.abort(new Error("deadline")));
const renderer = createLambdaRenderer({ client: createLambdaClient({ endpoint: process.argv[2], requestTimeoutMs: 30000 }), functionName: "webgate-render", maxBodyBytes: 100000 });
let out;
try {
  const page = await renderer.render({ url: "https://app.example.com/", waitMs: 0, timeoutMs: 1000 }, { signal: deadline.signal });
  out = { page: { ...page, body: page.body.toString("utf8") } };
} catch (error) {
  out = { code: error.code };
}
process.send(out, () => process.exit(0));
`,
    );
    return script;
  }

  /** Runs `script` against `endpoint`; `abortWhen` resolving aborts the render's deadline. */
  function renderInChild(script: string, endpoint: string, abortWhen?: Promise<void>): Promise<{ page?: Record<string, unknown>; code?: string }> {
    const child = fork(script, [endpoint], { env: { PATH: process.env.PATH ?? "", AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
    void abortWhen?.then(() => child.send("abort"));
    return new Promise((resolve, reject) => {
      child.once("message", (message) => resolve(message as { page?: Record<string, unknown>; code?: string }));
      child.once("exit", (code) => reject(new Error(`render child exited (${code}) without an answer`)));
    });
  }

  it("keeps the Lambda client out of the fetch handler's bundle, which loads it from beside itself", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    const built = await buildFetchHandler();
    const inputs = Object.keys(built.metafile.inputs);
    expect(inputs.some((f) => f.includes("node_modules/@aws-sdk/client-lambda/"))).toBe(false);
    expect(built.outputFiles.find((f) => f.path.endsWith(".mjs"))!.text).toContain(JSON.stringify(`./${LAMBDA_CLIENT_BUNDLE.outFile}`));
  });

  it("invokes the render function through the bundled renderer and the client bundle: page, abort, missing file", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    const script = await bundleRenderer(path.join(REPO_ROOT, "cdk.out", "test-bundle", "lambda-client"), true);
    const answering = await startLambdaStandIn(() => Promise.resolve(encodeRenderResult({ page: PAGE })));
    try {
      expect(await renderInChild(script, answering.endpoint)).toEqual({ page: { ...PAGE, body: PAGE.body.toString("utf8") } });
      expect(answering.events).toEqual(["invoke webgate-render"]);
    } finally {
      await answering.close();
    }
    // The request's deadline reaches the real client through the loader: the invoke is abandoned.
    const hanging = await startLambdaStandIn("never");
    try {
      expect(await renderInChild(script, hanging.endpoint, hanging.firstInvoke)).toEqual({ code: "upstream_timeout" });
      await hanging.firstHangUp;
    } finally {
      await hanging.close();
    }
    // Without the client bundle (a broken asset) a render is unavailable, not a crash.
    const missing = await bundleRenderer(path.join(REPO_ROOT, "cdk.out", "test-bundle", "lambda-client-missing"), false);
    expect(await renderInChild(missing, "http://127.0.0.1:9")).toEqual({ code: "render_unavailable" });
  });
});

describe("the conversion pipeline beside the bundle", () => {
  /** What a conversion gave: the document, or the error with every field the route reads. */
  type Outcome = { document: RenderedDocument } | { error: Record<string, unknown>; webgate: boolean } | { bug: string };

  const INPUTS: ConversionInput[] = [
    { body: readFileSync(path.join(REPO_ROOT, "test/fixtures/content/article.html")), contentType: "text/html; charset=utf-8", finalUrl: "https://example.com/a/page.html", mainContent: true },
    { body: readFileSync(path.join(REPO_ROOT, "test/fixtures/content/article.html")), contentType: "text/html", finalUrl: "https://example.com/a/page.html", mainContent: false, format: "text" },
    // The CJK tables: the data file beside the bundles, which the pipeline's bundle requires.
    { body: iconv.encode("<html><head><title>T</title></head><body><article><h1>Head</h1><p>日本語のテキストです。</p></article></body></html>", "Shift_JIS"), contentType: "text/html; charset=Shift_JIS", finalUrl: "https://example.com/", mainContent: false },
    { body: Buffer.from("plain text\n"), contentType: "text/plain", finalUrl: "https://example.com/a.txt", mainContent: true },
    // The errors a conversion throws: the function's own WebgateError, every field as unbundled.
    { body: Buffer.from("<html><head><title>Empty</title></head><body><div id=\"root\"></div><script src=\"/app.js\"></script></body></html>"), contentType: "text/html", finalUrl: "https://example.com/", mainContent: true },
    { body: Buffer.from([0, 1, 2, 3, 0, 0, 255, 254, 0, 7]), contentType: "application/octet-stream", finalUrl: "https://example.com/blob", mainContent: true },
    { body: Buffer.from([0x3c, 0x70, 0x3e, 0xff, 0xfe, 0xfd]), contentType: "text/html; charset=utf-8", finalUrl: "https://example.com/", mainContent: true },
  ];

  function outcomeOf(error: unknown, webgate: boolean): Outcome {
    if (!webgate) return { bug: String(error) };
    const e = error as Record<string, unknown>;
    return { error: Object.fromEntries(["name", "code", "message", "status", "retryable", "expose", "details", "headers", "logReason"].map((k) => [k, e[k]])), webgate };
  }

  /**
   * converter.ts bundled as the functions bundle it, in `dir`, with or without the pipeline's
   * bundle beside it, and a script that converts {@link INPUTS} through it in a fresh `node`
   * (vitest would route the bundle's own `import()` through its module runner).
   */
  async function bundleConverter(dir: string, withPipeline: boolean): Promise<string> {
    rmSync(dir, { recursive: true, force: true });
    const built = await build({ ...esbuildOptions(path.join(REPO_ROOT, "test/helpers/converter-outcomes.ts"), path.join(dir, "converter.mjs"), REPO_ROOT), metafile: true, logLevel: "silent" });
    const inputs = Object.keys(built.metafile.inputs);
    expect(inputs).toContain("infra/bundle-stubs/render-document-loader.ts");
    expect(inputs.some((f) => f === "shared/content/render.ts" || f.includes("node_modules/htmlparser2/") || f.includes("node_modules/turndown/"))).toBe(false);
    copyBundleDataFiles(REPO_ROOT, dir);
    if (withPipeline) {
      const pipeline = await build({ ...renderDocumentEsbuildOptions(REPO_ROOT, dir), metafile: true, logLevel: "silent" });
      expect(Object.keys(pipeline.metafile.inputs)).toContain("shared/content/render.ts");
    }
    const script = path.join(dir, "convert.mjs");
    writeFileSync(
      script,
      `import { readFileSync } from "node:fs";
import { convertAll } from "./converter.mjs";
const inputs = JSON.parse(readFileSync(process.argv[2], "utf8")).map((i) => ({ ...i, body: Buffer.from(i.body, "base64") }));
process.stdout.write(JSON.stringify(await convertAll(inputs)));
`,
    );
    return script;
  }

  function convertInChild(script: string): Outcome[] {
    const file = path.join(path.dirname(script), "inputs.json");
    writeFileSync(file, JSON.stringify(INPUTS.map((i) => ({ ...i, body: Buffer.from(i.body).toString("base64") }))));
    return JSON.parse(execFileSync(process.execPath, [script, file], { env: { PATH: process.env.PATH ?? "" }, encoding: "utf8" })) as Outcome[];
  }

  it("converts through the bundled converter and the pipeline's own bundle exactly as unbundled: documents and errors", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    const expected: Outcome[] = [];
    for (const input of INPUTS) {
      try {
        expected.push({ document: await inProcessConverter.convert(input, undefined) });
      } catch (error) {
        expected.push(outcomeOf(error, isWebgateError(error)));
      }
    }
    // Every kind of outcome is covered: documents, and three different error codes.
    expect(expected.filter((o) => "document" in o)).toHaveLength(4);
    expect(new Set(expected.map((o) => ("error" in o ? o.error.code : "document")))).toEqual(new Set(["document", "no_readable_content", "unsupported_content_type", "decode_failed"]));

    const script = await bundleConverter(path.join(REPO_ROOT, "cdk.out", "test-bundle", "render-document"), true);
    // JSON both sides: the documents hold no undefined field the comparison could hide.
    expect(convertInChild(script)).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it("fails a conversion as a bug (500 internal), never as a request error, when the pipeline's file is missing", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    const script = await bundleConverter(path.join(REPO_ROOT, "cdk.out", "test-bundle", "render-document-missing"), false);
    for (const outcome of convertInChild(script)) expect(outcome).toEqual({ bug: expect.stringContaining(RENDER_DOCUMENT_BUNDLE.outFile) });
  });

  it("keeps the pipeline out of the fetch handler's bundle, which loads it from beside itself", { timeout: CPU_WORK_TIMEOUT_MS }, async () => {
    const built = await buildFetchHandler();
    const inputs = Object.keys(built.metafile.inputs);
    expect(inputs.some((f) => f.startsWith("shared/content/extract/") || f === "shared/content/html-to-markdown.ts" || f.includes("node_modules/turndown/"))).toBe(false);
    expect(built.outputFiles.find((f) => f.path.endsWith(".mjs"))!.text).toContain(JSON.stringify(`./${RENDER_DOCUMENT_BUNDLE.outFile}`));
  });
});

describe("the CDK construct and the bench build the same bundle", () => {
  it("NodejsFunction's asset equals esbuild run with esbuildOptions()", async () => {
    const outdir = mkdtempSync(path.join(os.tmpdir(), "webgate-bundle-"));
    try {
      const entry = path.join(REPO_ROOT, "functions/search/handler.ts");
      const asset = synthFunctionAsset(outdir, { entry, serviceName: "webgate-search", memoryMb: 512, timeoutS: 10 });
      const deployed = readFileSync(path.join(asset, BUNDLE_FILE_NAME));

      const ours = await build({ ...esbuildOptions(entry, path.join(outdir, "bench", BUNDLE_FILE_NAME), REPO_ROOT), write: false, logLevel: "silent" });
      const code = ours.outputFiles.find((f) => f.path.endsWith(BUNDLE_FILE_NAME))!.contents;
      expect(Buffer.from(code).equals(deployed)).toBe(true);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, CPU_WORK_TIMEOUT_MS);

  it("ships the PDF worker, pdf.js's CMaps, the Lambda client, the conversion pipeline and the data files in the fetch function's asset", async () => {
    const outdir = mkdtempSync(path.join(os.tmpdir(), "webgate-bundle-"));
    try {
      const asset = synthFunctionAsset(outdir, { entry: path.join(REPO_ROOT, "functions/fetch/handler.ts"), serviceName: "webgate-fetch", memoryMb: 1024, timeoutS: 29, afterBundling: readerSideFileCommands });
      const deployed = readFileSync(path.join(asset, PDF_WORKER_BUNDLE.outFile));
      const ours = await build({ ...pdfWorkerEsbuildOptions(REPO_ROOT, path.join(outdir, "bench")), write: false, logLevel: "silent" });
      const code = ours.outputFiles.find((f) => f.path.endsWith(PDF_WORKER_BUNDLE.outFile))!.contents;
      expect(Buffer.from(code).equals(deployed)).toBe(true);
      const cmaps = readdirSync(path.join(asset, PDF_WORKER_BUNDLE.cMapDir));
      expect(cmaps).toContain("UniJIS-UCS2-H.bcmap");
      expect(cmaps.length).toBe(readdirSync(path.join(REPO_ROOT, PDF_WORKER_BUNDLE.cMapSource)).filter((f) => f.endsWith(".bcmap")).length);
      const client = await build({ ...lambdaClientEsbuildOptions(REPO_ROOT, path.join(outdir, "bench")), write: false, logLevel: "silent" });
      const clientCode = client.outputFiles.find((f) => f.path.endsWith(LAMBDA_CLIENT_BUNDLE.outFile))!.contents;
      expect(Buffer.from(clientCode).equals(readFileSync(path.join(asset, LAMBDA_CLIENT_BUNDLE.outFile)))).toBe(true);
      const pipeline = await build({ ...renderDocumentEsbuildOptions(REPO_ROOT, path.join(outdir, "bench")), write: false, logLevel: "silent" });
      const pipelineCode = pipeline.outputFiles.find((f) => f.path.endsWith(RENDER_DOCUMENT_BUNDLE.outFile))!.contents;
      expect(Buffer.from(pipelineCode).equals(readFileSync(path.join(asset, RENDER_DOCUMENT_BUNDLE.outFile)))).toBe(true);
      // The data files the pipeline's bundle requires from its own directory are there, byte for byte.
      for (const file of BUNDLE_DATA_FILES) {
        expect(readFileSync(path.join(asset, RENDER_DOCUMENT_BUNDLE.outFile), "utf8")).toContain(JSON.stringify(file.request));
        expect(readFileSync(path.join(asset, path.basename(file.request))).equals(readFileSync(path.join(REPO_ROOT, file.source)))).toBe(true);
      }
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  }, CPU_WORK_TIMEOUT_MS);
});
