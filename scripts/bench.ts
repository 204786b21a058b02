/**
 * `npm run bench [-- <corpus-folder>] [--passes N] [--out file.json]`
 *
 * Issue 6's benchmark. This file holds the CONVERSION section: webgate's pipeline (main_content
 * true and false) next to plain turndown, node-html-markdown and Readability + turndown over the
 * same DOM library, on a folder of `<page>/source.html` (+ `expected.html` for quality). Further
 * sections (/fetch latency, bundle size) plug in as more `BenchSection` producers in `main()`.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { NodeHtmlMarkdown } from "node-html-markdown";
import TurndownService from "turndown";
import { renderDocument } from "../shared/content/render";
import { type CorpusPage, loadCorpus } from "./lib/corpus";
import { mean, median, scoreMarkdown } from "./lib/quality";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DEFAULT_CORPUS = path.resolve(REPO_ROOT, "../shared/corpus/readability");
/** The URL the corpus's expected.html files were resolved against. */
const PAGE_URL = "http://fakehost/test/page.html";

/** One titled table of the report plus its raw figures for the JSON file. */
export interface BenchSection {
  title: string;
  columns: string[];
  rows: (string | number)[][];
  notes: string[];
  data: unknown;
}

interface Contender {
  name: string;
  /** Converts one page; webgate starts from the bytes (decoding included), the others from text. */
  convert(page: CorpusPage): string;
}

export interface ConversionResult {
  name: string;
  passesMs: number[];
  medianMs: number;
  mbPerS: number;
  recall: number;
  noise: number;
  errors: number;
}

function contenders(): Contender[] {
  const plain = new TurndownService();
  const afterReadability = new TurndownService();
  return [
    {
      name: "webgate main_content=true",
      convert: (p) => renderDocument({ body: p.source, contentType: "text/html; charset=utf-8", finalUrl: PAGE_URL, mainContent: true }).content,
    },
    {
      name: "webgate main_content=false",
      convert: (p) => renderDocument({ body: p.source, contentType: "text/html; charset=utf-8", finalUrl: PAGE_URL, mainContent: false }).content,
    },
    { name: "turndown (defaults)", convert: (p) => plain.turndown(p.html) },
    { name: "node-html-markdown (defaults)", convert: (p) => NodeHtmlMarkdown.translate(p.html) },
    {
      name: "Readability(linkedom) + turndown",
      convert: (p) => {
        const { document } = parseHTML(p.html) as unknown as { document: never };
        const article = new Readability(document).parse();
        return article?.content ? afterReadability.turndown(article.content) : "";
      },
    },
  ];
}

/** Runs every contender `passes` times over the corpus (single thread) and scores the first pass. */
export function benchConversion(folder: string, passes: number): { section: BenchSection; results: ConversionResult[] } {
  const pages = loadCorpus(folder);
  const totalBytes = pages.reduce((n, p) => n + p.source.byteLength, 0);
  const all = contenders();
  const passesMs: number[][] = all.map(() => []);
  const outputs: string[][] = all.map(() => []);
  const errors = all.map(() => 0);
  // Passes are interleaved (every converter once per round, the order rotated each round) so that
  // a change in machine load, or the garbage a previous converter left, hits all converters alike.
  for (let pass = 0; pass < passes; pass++) {
    all.forEach((_, k) => {
      const c = (k + pass) % all.length;
      const contender = all[c]!;
      const out: string[] = [];
      const t0 = performance.now();
      for (const page of pages) {
        try {
          out.push(contender.convert(page));
        } catch {
          errors[c]!++;
          out.push("");
        }
      }
      passesMs[c]!.push(performance.now() - t0);
      if (pass === 0) outputs[c] = out;
      process.stderr.write(`  round ${pass + 1}/${passes} ${contender.name}: ${passesMs[c]!.at(-1)!.toFixed(0)} ms\n`);
    });
  }
  const results: ConversionResult[] = all.map((contender, c) => {
    const scores = pages.map((p, i) => scoreMarkdown(p.expectedHtml, outputs[c]![i]!));
    const medianMs = median(passesMs[c]!);
    return {
      name: contender.name,
      passesMs: passesMs[c]!,
      medianMs,
      mbPerS: totalBytes / 1e6 / (medianMs / 1000),
      recall: mean(scores.map((s) => s.recall)),
      noise: mean(scores.map((s) => s.noise)),
      errors: errors[c]! / passes,
    };
  });

  const rate = (name: string) => results.find((r) => r.name === name)!.mbPerS;
  const ratios = {
    "webgate false / turndown": rate("webgate main_content=false") / rate("turndown (defaults)"),
    "webgate false / node-html-markdown": rate("webgate main_content=false") / rate("node-html-markdown (defaults)"),
    "webgate true / Readability+turndown": rate("webgate main_content=true") / rate("Readability(linkedom) + turndown"),
    "webgate true / turndown": rate("webgate main_content=true") / rate("turndown (defaults)"),
  };
  return {
    results,
    section: {
      title: `Conversion: ${pages.length} pages, ${(totalBytes / 1e6).toFixed(1)} MB of HTML, median of ${passes} passes, single thread`,
      columns: ["converter", "MB/s", "median ms", "recall", "noise", "errors/pass"],
      rows: results.map((r) => [r.name, r.mbPerS.toFixed(2), r.medianMs.toFixed(0), r.recall.toFixed(4), r.noise.toFixed(4), r.errors]),
      notes: [
        ...Object.entries(ratios).map(([k, v]) => `ratio ${k}: ${v.toFixed(2)}x`),
        "targets (issue 6): webgate false >= 4x turndown; webgate true >= 1.5x Readability+turndown; quality: true recall >= 0.97 noise <= 0.05, false recall >= 0.99 noise <= 0.25",
      ],
      data: { folder, pages: pages.length, totalBytes, passes, results, ratios },
    },
  };
}

function renderTable(section: BenchSection): string {
  const widths = section.columns.map((c, i) => Math.max(c.length, ...section.rows.map((r) => String(r[i]).length)));
  const line = (cells: (string | number)[]) => `| ${cells.map((c, i) => String(c).padEnd(widths[i]!)).join(" | ")} |`;
  return [`### ${section.title}`, "", line(section.columns), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...section.rows.map(line), "", ...section.notes.map((n) => `- ${n}`)].join("\n");
}

function parseArgs(argv: string[]): { folder: string | undefined; passes: number; out: string | undefined } {
  let folder: string | undefined;
  let passes = 3;
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--passes") passes = Math.max(3, Number(argv[++i]) || 3);
    else if (arg === "--out") out = argv[++i];
    else folder = arg;
  }
  return { folder, passes, out };
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const folder = path.resolve(args.folder ?? DEFAULT_CORPUS);
  if (!existsSync(folder)) {
    console.error(`No corpus folder at ${folder}.\nPass one: npm run bench -- <folder with <page>/source.html and expected.html>`);
    process.exit(2);
  }
  const machine = `${os.cpus()[0]?.model ?? "unknown CPU"}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`;
  console.log(`webgate bench on ${machine}\n`);

  const sections: BenchSection[] = [benchConversion(folder, args.passes).section];

  for (const s of sections) console.log(`${renderTable(s)}\n`);
  const outFile = path.resolve(args.out ?? path.join(REPO_ROOT, ".bench", `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`));
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, JSON.stringify({ machine, date: new Date().toISOString(), sections: sections.map((s) => ({ title: s.title, data: s.data })) }, null, 2));
  console.log(`JSON written to ${outFile}`);
}

main();
