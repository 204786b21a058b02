/**
 * The PDF section of `npm run bench`: the PDF reader as Lambda runs it (shared/content/pdf.ts
 * bundled like the handler, the worker bundled on its own beside it, pdf.js's CMaps copied, as
 * infra/bundling.ts ships them), measured in fresh `node` processes:
 * - the size of the worker bundle, and that the fetch handler's bundle holds no pdf.js (the HTML
 *   path's cold start does not load it: the bundle section measures that import);
 * - the first PDF of a process (worker start + pdf.js load + reading a one-page PDF);
 * - then, with the worker warm, a one-page, a 50-page and a 500-page text PDF.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { PDF_WORKER_BUNDLE, esbuildOptions, pdfWorkerEsbuildOptions } from "../../infra/bundling";
import type { BenchSection } from "./bench-section";
import { median } from "./quality";

export interface PdfBenchOptions {
  repoRoot: string;
  /** Must sit below `repoRoot`. */
  outDir: string;
  /** Fresh processes. */
  runs: number;
  progress?: (line: string) => void;
}

const SAMPLES = [
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

interface Run {
  importMs: number;
  firstMs: number;
  warmMs: number[];
  chars: number[];
}

function runOnce(dir: string, files: string[]): Promise<Run> {
  const code = `
    import { readFileSync } from "node:fs";
    const opts = { maxPages: 500, timeoutMs: 120000, format: "markdown" };
    const files = ${JSON.stringify(files)}.map((f) => readFileSync(f));
    let t = performance.now();
    const m = await import(${JSON.stringify(pathToFileURL(path.join(dir, "pdf.mjs")).href)});
    const importMs = performance.now() - t;
    t = performance.now();
    await m.readPdf(files[0], opts);
    const firstMs = performance.now() - t;
    const warmMs = [], chars = [];
    for (const f of files) { t = performance.now(); const r = await m.readPdf(f, opts); warmMs.push(performance.now() - t); chars.push(r.content.length); }
    process.stdout.write(JSON.stringify({ importMs, firstMs, warmMs, chars }));
    process.exit(0);`;
  return new Promise((resolve, reject) => {
    // A script file, not `--input-type=module -e`: the reader's worker thread inherits the
    // process's execArgv, and Node refuses `--input-type` for a worker started from a file.
    const script = path.join(dir, "run-once.mjs");
    writeFileSync(script, code);
    const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("close", (status) => {
      if (status !== 0) reject(new Error(`PDF bench process failed (exit ${status}): ${err.slice(0, 500)}`));
      else resolve(JSON.parse(out) as Run);
    });
  });
}

export async function benchPdf(options: PdfBenchOptions): Promise<{ section: BenchSection }> {
  const progress = options.progress ?? (() => undefined);
  const dir = options.outDir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const handler = await build({
    ...esbuildOptions(path.join(options.repoRoot, "functions/fetch/handler.ts"), path.join(dir, "handler", "index.mjs"), options.repoRoot),
    metafile: true,
    write: false,
    logLevel: "warning",
  });
  const handlerHasPdfJs = Object.keys(handler.metafile.inputs).some((f) => f.includes("pdfjs-dist"));
  await build({ ...esbuildOptions(path.join(options.repoRoot, "shared/content/pdf.ts"), path.join(dir, "pdf.mjs"), options.repoRoot), logLevel: "warning" });
  const worker = await build({ ...pdfWorkerEsbuildOptions(options.repoRoot, dir), metafile: true, logLevel: "warning" });
  const workerBytes = Object.entries(worker.metafile.outputs).find(([name]) => name.endsWith(PDF_WORKER_BUNDLE.outFile))![1].bytes;
  cpSync(path.join(options.repoRoot, PDF_WORKER_BUNDLE.cMapSource), path.join(dir, PDF_WORKER_BUNDLE.cMapDir), { recursive: true });

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
  for (let i = 0; i < options.runs; i++) {
    runs.push(await runOnce(dir, files));
    progress(`  pdf run ${i + 1}/${options.runs}: first PDF ${runs.at(-1)!.firstMs.toFixed(0)} ms`);
  }
  const importMs = median(runs.map((r) => r.importMs));
  const firstMs = median(runs.map((r) => r.firstMs));
  const warm = SAMPLES.map((_, i) => median(runs.map((r) => r.warmMs[i]!)));
  return {
    section: {
      title: `PDF reading as Lambda ships it (worker bundle beside index.mjs), median of ${options.runs} fresh processes`,
      columns: ["step", "ms (median)", "PDF KB", "content chars", "pages/s"],
      rows: [
        ["import the bundled reader (no pdf.js yet)", importMs.toFixed(1), "-", "-", "-"],
        ["first PDF of a process: worker start + pdf.js load + 1 page", firstMs.toFixed(0), (sizes[0]! / 1024).toFixed(0), runs[0]!.chars[0]!, "-"],
        ...SAMPLES.map((s, i) => [`warm worker: ${s.name}`, warm[i]!.toFixed(0), (sizes[i]! / 1024).toFixed(0), runs[0]!.chars[i]!, ((s.pages / warm[i]!) * 1000).toFixed(0)]),
      ],
      notes: [
        `worker bundle (pdf.js + the worker entry, minified): ${(workerBytes / 1024).toFixed(0)} KB, shipped beside index.mjs with ${PDF_WORKER_BUNDLE.cMapDir}/`,
        `fetch handler bundle contains pdf.js: ${handlerHasPdfJs ? "YES (the lazy split is broken)" : "no"}; its size and cold import are in the bundle section`,
      ],
      data: { runs: options.runs, workerBytes, handlerHasPdfJs, importMs, firstMs, warm: SAMPLES.map((s, i) => ({ ...s, ms: warm[i], bytes: sizes[i] })), raw: runs },
    },
  };
}
