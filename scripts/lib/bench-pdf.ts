/**
 * The PDF section of `npm run bench`: the PDF reader as Lambda runs it (shared/content/pdf.ts
 * bundled like the handler, the worker bundled on its own beside it, pdf.js's CMaps copied, as
 * infra/bundling.ts ships them), measured in fresh `node` processes:
 * - the fetch function's bundle as deployed: its size, that it holds no pdf.js, and its cold
 *   import in a fresh process with a Lambda-like environment, beside an empty module's (the anchor
 *   every cold import is read against);
 * - the size of the worker bundle;
 * - the first PDF of a process (worker start + pdf.js load + reading a one-page PDF), beside the
 *   first HTML page of a process through the same bundled pipeline (the HTML path's cold cost, the
 *   anchor for what a PDF adds) and the same one-page PDF on the warm worker;
 * - then, with the worker warm, a one-page, a 50-page and a 500-page text PDF.
 * Fresh processes are interleaved (empty module, handler, PDF process) run by run, so a change in
 * machine load hits all of them alike.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { BUNDLE_FILE_NAME, PDF_WORKER_BUNDLE, copyBundleDataFiles, esbuildOptions, pdfWorkerEsbuildOptions } from "../../infra/bundling";
import { generateArticleHtml } from "./article-html";
import { coldImport, lambdaEnv } from "./bench-bundle";
import type { BenchSection } from "./bench-section";
import { runNodeChild } from "./node-child";
import { median } from "./quality";

export interface PdfBenchOptions {
  repoRoot: string;
  /** Must sit below `repoRoot`. */
  outDir: string;
  /** Fresh processes. */
  runs: number;
  progress?: (line: string) => void;
  /** The PDFs read on the warm worker, the first one also cold; default {@link PDF_SAMPLES}. */
  samples?: ReadonlyArray<{ name: string; pages: number }>;
}

export const PDF_SAMPLES = [
  { name: "1 page", pages: 1 },
  { name: "50 pages", pages: 50 },
  { name: "500 pages", pages: 500 },
] as const;

/** A text PDF of `pages` pages, 40 lines each, written with pdf-lib. */
async function samplePdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Bench ${pages}`);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([612, 792]);
    for (let l = 0; l < 40; l++) page.drawText(`Page ${p + 1}, line ${l + 1}: a sentence of ordinary words that fills the line.`, { x: 72, y: 740 - l * 16, size: 11, font });
  }
  return doc.save();
}

/** The HTML anchor: an article page of about this size, through the bundled pipeline. */
const HTML_ANCHOR_BYTES = 20_000;

interface Run {
  importMs: number;
  firstMs: number;
  warmMs: number[];
  chars: number[];
  /** Importing the bundled HTML pipeline, then its first page. */
  htmlImportMs: number;
  htmlFirstMs: number;
  htmlChars: number;
}

async function runOnce(dir: string, files: string[], htmlFile: string): Promise<Run> {
  const code = `
    import { readFileSync } from "node:fs";
    const opts = { maxPages: 500, timeoutMs: 120000, format: "markdown" };
    const files = ${JSON.stringify(files)}.map((f) => readFileSync(f));
    const html = readFileSync(${JSON.stringify(htmlFile)});
    let t = performance.now();
    const h = await import(${JSON.stringify(pathToFileURL(path.join(dir, "render.mjs")).href)});
    const htmlImportMs = performance.now() - t;
    t = performance.now();
    const page = h.renderDocument({ body: html, contentType: "text/html; charset=utf-8", finalUrl: "https://example.com/article", mainContent: true });
    const htmlFirstMs = performance.now() - t;
    t = performance.now();
    const m = await import(${JSON.stringify(pathToFileURL(path.join(dir, "pdf.mjs")).href)});
    const importMs = performance.now() - t;
    t = performance.now();
    await m.readPdf(files[0], opts);
    const firstMs = performance.now() - t;
    const warmMs = [], chars = [];
    for (const f of files) { t = performance.now(); const r = await m.readPdf(f, opts); warmMs.push(performance.now() - t); chars.push(r.content.length); }
    process.stdout.write(JSON.stringify({ importMs, firstMs, warmMs, chars, htmlImportMs, htmlFirstMs, htmlChars: page.content.length }));
    process.exit(0);`;
  // A script file, not `--input-type=module -e`: the reader's worker once inherited the process's
  // execArgv, and Node refuses `--input-type` for a worker started from a file. pdf.ts now gives
  // its worker its own (shared/content/worker-exec-argv.ts); the script file stays, the plainer run.
  const script = path.join(dir, "run-once.mjs");
  writeFileSync(script, code);
  const run = await runNodeChild({ args: [script], label: "PDF bench process", read: (out) => JSON.parse(out) as Run, quote: { stderr: 500 } });
  return run.value;
}

export async function benchPdf(options: PdfBenchOptions): Promise<{ section: BenchSection }> {
  const progress = options.progress ?? (() => undefined);
  const SAMPLES = options.samples ?? PDF_SAMPLES;
  const dir = options.outDir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const handlerDir = path.join(dir, "handler");
  const handlerFile = path.join(handlerDir, BUNDLE_FILE_NAME);
  const handler = await build({
    ...esbuildOptions(path.join(options.repoRoot, "functions/fetch/handler.ts"), handlerFile, options.repoRoot),
    metafile: true,
    logLevel: "warning",
  });
  const handlerHasPdfJs = Object.keys(handler.metafile.inputs).some((f) => f.includes("pdfjs-dist"));
  const handlerBytes = Object.entries(handler.metafile.outputs).find(([name]) => name.endsWith(BUNDLE_FILE_NAME))![1].bytes;
  const emptyDir = path.join(dir, "empty");
  const emptyFile = path.join(emptyDir, BUNDLE_FILE_NAME);
  mkdirSync(emptyDir, { recursive: true });
  writeFileSync(emptyFile, "export const handler = async () => ({ statusCode: 200, body: '' });\n");
  await build({ ...esbuildOptions(path.join(options.repoRoot, "shared/content/pdf.ts"), path.join(dir, "pdf.mjs"), options.repoRoot), logLevel: "warning" });
  await build({ ...esbuildOptions(path.join(options.repoRoot, "shared/content/render.ts"), path.join(dir, "render.mjs"), options.repoRoot), logLevel: "warning" });
  const htmlFile = path.join(dir, "article.html");
  writeFileSync(htmlFile, generateArticleHtml(HTML_ANCHOR_BYTES, 3));
  const worker = await build({ ...pdfWorkerEsbuildOptions(options.repoRoot, dir), metafile: true, logLevel: "warning" });
  const workerBytes = Object.entries(worker.metafile.outputs).find(([name]) => name.endsWith(PDF_WORKER_BUNDLE.outFile))![1].bytes;
  cpSync(path.join(options.repoRoot, PDF_WORKER_BUNDLE.cMapSource), path.join(dir, PDF_WORKER_BUNDLE.cMapDir), { recursive: true });
  copyBundleDataFiles(options.repoRoot, handlerDir);
  copyBundleDataFiles(options.repoRoot, dir);

  const files: string[] = [];
  const sizes: number[] = [];
  for (const sample of SAMPLES) {
    const bytes = await samplePdf(sample.pages);
    const file = path.join(dir, `sample-${sample.pages}.pdf`);
    writeFileSync(file, bytes);
    files.push(file);
    sizes.push(bytes.byteLength);
  }
  const runs: Run[] = [];
  const emptyImports: number[] = [];
  const handlerImports: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    emptyImports.push((await coldImport(emptyFile, lambdaEnv(null, emptyDir))).importMs);
    handlerImports.push((await coldImport(handlerFile, lambdaEnv("fetch", handlerDir))).importMs);
    runs.push(await runOnce(dir, files, htmlFile));
    progress(`  pdf run ${i + 1}/${options.runs}: fetch handler import ${handlerImports.at(-1)!.toFixed(0)} ms, first PDF ${runs.at(-1)!.firstMs.toFixed(0)} ms`);
  }
  const emptyImportMs = median(emptyImports);
  const handlerImportMs = median(handlerImports);
  const importMs = median(runs.map((r) => r.importMs));
  const firstMs = median(runs.map((r) => r.firstMs));
  const htmlImportMs = median(runs.map((r) => r.htmlImportMs));
  const htmlFirstMs = median(runs.map((r) => r.htmlFirstMs));
  const warm = SAMPLES.map((_, i) => median(runs.map((r) => r.warmMs[i]!)));
  return {
    section: {
      title: `PDF reading as Lambda ships it (worker bundle beside index.mjs), median of ${options.runs} fresh processes`,
      columns: ["step", "ms (median)", "input KB", "content chars", "pages/s"],
      rows: [
        ["anchor: cold import of an empty module", emptyImportMs.toFixed(1), "-", "-", "-"],
        [`cold import of the fetch handler bundle (${(handlerBytes / 1024).toFixed(0)} KB, pdf.js ${handlerHasPdfJs ? "IN IT" : "not in it"})`, handlerImportMs.toFixed(1), "-", "-", "-"],
        ["import the bundled HTML pipeline", htmlImportMs.toFixed(1), "-", "-", "-"],
        ["anchor: first HTML page of a process (article, main_content)", htmlFirstMs.toFixed(0), (HTML_ANCHOR_BYTES / 1024).toFixed(0), runs[0]!.htmlChars, "-"],
        ["import the bundled PDF reader (no pdf.js yet)", importMs.toFixed(1), "-", "-", "-"],
        ["first PDF of a process: worker start + pdf.js load + 1 page", firstMs.toFixed(0), (sizes[0]! / 1024).toFixed(0), runs[0]!.chars[0]!, "-"],
        ...SAMPLES.map((s, i) => [`warm worker: ${s.name}`, warm[i]!.toFixed(0), (sizes[i]! / 1024).toFixed(0), runs[0]!.chars[i]!, ((s.pages / warm[i]!) * 1000).toFixed(0)]),
      ],
      notes: [
        `fetch handler: ${(handlerBytes / 1024).toFixed(0)} KB minified, cold import empty + ${(handlerImportMs - emptyImportMs).toFixed(0)} ms; pdf.js in it: ${handlerHasPdfJs ? "YES (the lazy split is broken)" : "no (the HTML path's cold start does not load it)"}`,
        `first PDF ${firstMs.toFixed(0)} ms = ${(firstMs / Math.max(htmlFirstMs, 0.1)).toFixed(1)}x the first HTML page, ${(firstMs / Math.max(warm[0]!, 0.1)).toFixed(1)}x the same PDF on a warm worker (the difference is the worker start and pdf.js load, once per instance)`,
        `worker bundle (pdf.js + the worker entry, minified): ${(workerBytes / 1024).toFixed(0)} KB, shipped beside index.mjs with ${PDF_WORKER_BUNDLE.cMapDir}/`,
      ],
      data: {
        runs: options.runs,
        handlerBytes,
        handlerHasPdfJs,
        emptyImportMs,
        handlerImportMs,
        htmlImportMs,
        htmlFirstMs,
        workerBytes,
        importMs,
        firstMs,
        warm: SAMPLES.map((s, i) => ({ ...s, ms: warm[i], bytes: sizes[i] })),
        raw: { runs, emptyImports, handlerImports },
      },
    },
  };
}
