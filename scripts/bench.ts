/**
 * `npm run bench [-- <corpus-folder>] [--only conversion,quality,cost,fetch,bundle,pdf] [--passes N]
 *   [--requests N] [--budget S] [--runs N] [--out file.json]`
 *
 * Issue 6's benchmark, in one run:
 * - conversion (this file): webgate's pipeline (main_content true and false) next to plain
 *   turndown, node-html-markdown and Readability + turndown over the same DOM library, on a folder
 *   of `<page>/source.html` (+ `expected.html` for quality);
 * - fetch (scripts/lib/bench-fetch.ts): /fetch latency through the local server;
 * - bundle (scripts/lib/bench-bundle.ts): the functions' bundles as the CDK builds them;
 * - quality (scripts/lib/bench-quality.ts): main-content extraction scored on the labelled pages of
 *   ../shared/extraction-eval beside Readability.js (jsdom) in the same run and the published rows
 *   (skipped with a notice when the folder is absent).
 * - pdf (scripts/lib/bench-pdf.ts): the PDF reader's worker bundle and the first-PDF latency;
 * - cost (scripts/lib/bench-cost.ts): conversion ms per MB against size, ordinary HTML beside the
 *   pathological shapes of issue 17, the speed anchors on the same HTML, and the local server's
 *   latency while a long conversion runs.
 * Then one table of issue 6's targets, and the figures as JSON. With more than one section, each
 * runs in a process of its own (this script with `--section-json`), so no section's heap weighs on
 * another's figures.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { NodeHtmlMarkdown } from "node-html-markdown";
import TurndownService from "turndown";
import { renderDocument } from "../shared/content/render";
import { benchBundles } from "./lib/bench-bundle";
import { COST_RATIO_GOAL, benchCost } from "./lib/bench-cost";
import { benchFetch } from "./lib/bench-fetch";
import { QUALITY_GOAL_F, benchQuality } from "./lib/bench-quality";
import { benchPdf } from "./lib/bench-pdf";
import { type BenchSection, renderTable } from "./lib/bench-section";
import { type CorpusPage, loadCorpus } from "./lib/corpus";
import { cpuClock } from "./lib/cpu-clock";
import { mean, median, scoreMarkdown } from "./lib/quality";
import { findSharedDir } from "./lib/shared-dir";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DEFAULT_CORPUS = path.join(findSharedDir() ?? path.resolve(REPO_ROOT, "../shared"), "corpus/readability");
/** The URL the corpus's expected.html files were resolved against. */
const PAGE_URL = "http://fakehost/test/page.html";

export type { BenchSection } from "./lib/bench-section";

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
  // CPU time of this thread, not wall-clock: the machine is shared (scripts/lib/cpu-clock.ts).
  const clock = cpuClock();
  // Passes are interleaved (every converter once per round, the order rotated each round) so that
  // a change in machine load, or the garbage a previous converter left, hits all converters alike.
  for (let pass = 0; pass < passes; pass++) {
    all.forEach((_, k) => {
      const c = (k + pass) % all.length;
      const contender = all[c]!;
      const out: string[] = [];
      const t0 = clock.nowMs();
      for (const page of pages) {
        try {
          out.push(contender.convert(page));
        } catch {
          errors[c]!++;
          out.push("");
        }
      }
      passesMs[c]!.push(clock.nowMs() - t0);
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
      title: `Conversion: ${pages.length} pages, ${(totalBytes / 1e6).toFixed(1)} MB of HTML, median of ${passes} passes, single thread, CPU time`,
      columns: ["converter", "MB/s", "median ms", "recall", "noise", "errors/pass"],
      rows: results.map((r) => [r.name, r.mbPerS.toFixed(2), r.medianMs.toFixed(0), r.recall.toFixed(4), r.noise.toFixed(4), r.errors]),
      notes: [
        ...Object.entries(ratios).map(([k, v]) => `ratio ${k}: ${v.toFixed(2)}x`),
        `clock: ${clock.name}; MB/s = MB per CPU second`,
        "targets (issue 6): webgate false >= 4x turndown; webgate true >= 1.5x Readability+turndown; quality: true recall >= 0.97 noise <= 0.05, false recall >= 0.99 noise <= 0.25",
      ],
      data: { folder, pages: pages.length, totalBytes, passes, clock: clock.name, results, ratios },
    },
  };
}

const SECTIONS = ["conversion", "quality", "cost", "fetch", "bundle", "pdf"] as const;
type SectionName = (typeof SECTIONS)[number];

interface Args {
  folder: string | undefined;
  only: SectionName[];
  passes: number;
  requests: number;
  budgetS: number;
  runs: number;
  out: string | undefined;
  /** Internal: run the sections in this process and write them, whole, to this file. */
  sectionJson: string | undefined;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { folder: undefined, only: [...SECTIONS], passes: 3, requests: 200, budgetS: 60, runs: 10, out: undefined, sectionJson: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--passes") args.passes = Math.max(3, Number(argv[++i]) || 3);
    else if (arg === "--requests") args.requests = Math.max(1, Number(argv[++i]) || 200);
    else if (arg === "--budget") args.budgetS = Math.max(1, Number(argv[++i]) || 60);
    else if (arg === "--runs") args.runs = Math.max(1, Number(argv[++i]) || 10);
    else if (arg === "--out") args.out = argv[++i];
    else if (arg === "--section-json") args.sectionJson = argv[++i];
    else if (arg === "--only") {
      const names = (argv[++i] ?? "").split(",").map((n) => n.trim()).filter((n) => n.length > 0);
      const unknown = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
      if (unknown.length > 0 || names.length === 0) {
        console.error(`--only takes a comma-separated list of ${SECTIONS.join(", ")}; got "${argv[i] ?? ""}"`);
        process.exit(2);
      }
      args.only = names as SectionName[];
    } else args.folder = arg;
  }
  return args;
}

/** One row per issue 6 target that the sections run measured, with its figure. */
function targetsSection(sections: Map<SectionName, BenchSection>): BenchSection {
  const rows: (string | number)[][] = [];
  const conversion = sections.get("conversion")?.data as { ratios: Record<string, number> } | undefined;
  if (conversion) {
    const f = conversion.ratios["webgate false / turndown"]!;
    const t = conversion.ratios["webgate true / Readability+turndown"]!;
    rows.push(["webgate main_content=false MB/s >= 4x plain turndown", `${f.toFixed(2)}x`, f >= 4 ? "met" : "missed"]);
    rows.push(["webgate main_content=true MB/s >= 1.5x Readability + turndown", `${t.toFixed(2)}x`, t >= 1.5 ? "met" : "missed"]);
  }
  const quality = sections.get("quality")?.data as { webgate: { score: { f: number } } } | undefined;
  if (quality) {
    const f = quality.webgate.score.f;
    rows.push([`main content, dev set (extraction-eval) F >= ${QUALITY_GOAL_F} (issue 17)`, f.toFixed(3), f >= QUALITY_GOAL_F ? "met" : "missed"]);
  }
  const cost = sections.get("cost")?.data as { worstRatio: number; falseVsTurndown: number[]; trueVsReadability: number[] } | undefined;
  if (cost) {
    rows.push([`no shape over ${COST_RATIO_GOAL}x ordinary HTML's ms/MB at 10 KB-5 MB (issue 17)`, `worst ${cost.worstRatio.toFixed(2)}x`, cost.worstRatio <= COST_RATIO_GOAL ? "met" : "missed"]);
    const low = (xs: number[]) => Math.min(...xs);
    rows.push(["cost section, ordinary HTML: main_content=false >= 4x plain turndown at every size", `${low(cost.falseVsTurndown).toFixed(2)}x at worst`, low(cost.falseVsTurndown) >= 4 ? "met" : "missed"]);
    rows.push(["cost section, ordinary HTML: main_content=true >= 1.5x Readability + turndown at every size", `${low(cost.trueVsReadability).toFixed(2)}x at worst`, low(cost.trueVsReadability) >= 1.5 ? "met" : "missed"]);
  }
  const fetch = sections.get("fetch")?.data as { hitToMissP50Ratio1MB: number } | undefined;
  if (fetch) rows.push(["1 MB page: hit p50 <= 0.25x miss p50", `${fetch.hitToMissP50Ratio1MB.toFixed(3)}x`, fetch.hitToMissP50Ratio1MB <= 0.25 ? "met" : "missed"]);
  const bundle = sections.get("bundle")?.data as { results: Array<{ name: string; bytes: number; importMs: number }>; targets: { maxKb: number; maxImportOverEmptyMs: number } } | undefined;
  if (bundle) {
    const empty = bundle.results.find((r) => r.name === "empty module")!;
    for (const r of bundle.results.filter((x) => x.name === "fetch" || x.name === "search")) {
      const kb = r.bytes / 1024;
      const over = r.importMs - empty.importMs;
      rows.push([`${r.name} bundle <= ${bundle.targets.maxKb} KB minified`, `${kb.toFixed(0)} KB`, kb <= bundle.targets.maxKb ? "met" : "missed"]);
      rows.push([`${r.name} cold import <= empty + ${bundle.targets.maxImportOverEmptyMs} ms`, `empty + ${over.toFixed(0)} ms`, over <= bundle.targets.maxImportOverEmptyMs ? "met" : "missed"]);
    }
  }
  return { title: "Targets (issues 6 and 17), ratios within this run", columns: ["target", "this run", "status"], rows, notes: [], data: rows };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const folder = path.resolve(args.folder ?? DEFAULT_CORPUS);
  if (args.only.includes("conversion") && !existsSync(folder)) {
    console.error(`No corpus folder at ${folder}.\nPass one: npm run bench -- <folder with <page>/source.html and expected.html>\nor run the other sections only: npm run bench -- --only cost,fetch,bundle,pdf`);
    process.exit(2);
  }
  const machine = `${os.cpus()[0]?.model ?? "unknown CPU"}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`;
  console.log(`webgate bench on ${machine}\n`);
  const progress = (line: string) => process.stderr.write(`${line}\n`);

  const sections = new Map<SectionName, BenchSection>();
  if (args.sectionJson === undefined && args.only.length > 1) {
    // Each section in a process of its own: one section's heap (990 pages through jsdom, the
    // corpus under five converters) then neither slows another's figures through garbage
    // collection nor adds up to the heap limit (a whole run in one process ran out of heap in
    // the cost section's 5 MB pages).
    for (const name of orderedForRun(args.only)) {
      const file = path.join(os.tmpdir(), `webgate-bench-${process.pid}-${name}.json`);
      const forwarded = stripOnly(process.argv.slice(2));
      const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...forwarded, "--only", name, "--section-json", file], { stdio: ["ignore", "ignore", "inherit"] });
      if (child.status !== 0 || !existsSync(file)) {
        console.error(`bench section ${name} failed (exit ${child.status ?? child.signal ?? "unknown"})`);
        process.exit(1);
      }
      for (const [key, section] of JSON.parse(readFileSync(file, "utf8")) as Array<[SectionName, BenchSection]>) sections.set(key, section);
      rmSync(file, { force: true });
    }
  } else await runSections(args, folder, progress, sections);
  if (args.sectionJson !== undefined) {
    writeFileSync(args.sectionJson, JSON.stringify([...sections]));
    return;
  }
  report(args, machine, sections);
}

/** The order a whole run takes: bundles first (their child processes then meet an idle machine). */
function orderedForRun(only: SectionName[]): SectionName[] {
  return (["bundle", "pdf", "conversion", "quality", "cost", "fetch"] as const).filter((name) => only.includes(name));
}

function stripOnly(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--only" || argv[i] === "--out" || argv[i] === "--section-json") i++;
    else out.push(argv[i]!);
  }
  return out;
}

async function runSections(args: Args, folder: string, progress: (line: string) => void, sections: Map<SectionName, BenchSection>): Promise<void> {
  // Bundles first: their child processes then do not compete with a warm, busy parent.
  if (args.only.includes("bundle")) sections.set("bundle", (await benchBundles({ repoRoot: REPO_ROOT, outDir: path.join(REPO_ROOT, ".bench", "bundles"), runs: args.runs, progress })).section);
  if (args.only.includes("pdf")) sections.set("pdf", (await benchPdf({ repoRoot: REPO_ROOT, outDir: path.join(REPO_ROOT, ".bench", "pdf"), runs: Math.min(args.runs, 5), progress })).section);
  if (args.only.includes("conversion")) sections.set("conversion", benchConversion(folder, args.passes).section);
  if (args.only.includes("quality")) {
    const shared = findSharedDir();
    if (shared === null || !existsSync(path.join(shared, "extraction-eval"))) progress("quality section skipped: no ../shared/extraction-eval beside the repo (set WEBGATE_SHARED_DIR)");
    else sections.set("quality", benchQuality({ sharedDir: shared, progress }).section);
  }
  if (args.only.includes("cost")) sections.set("cost", (await benchCost({ progress })).section);
  if (args.only.includes("fetch")) sections.set("fetch", (await benchFetch({ requests: args.requests, budgetMs: args.budgetS * 1000, progress })).section);
}

function report(args: Args, machine: string, sections: Map<SectionName, BenchSection>): void {
  const ordered = SECTIONS.flatMap((name) => sections.get(name) ?? []);
  const all = [...ordered, targetsSection(sections)];
  for (const s of all) console.log(`${renderTable(s)}\n`);
  const outFile = path.resolve(args.out ?? path.join(REPO_ROOT, ".bench", `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`));
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, JSON.stringify({ machine, date: new Date().toISOString(), sections: all.map((s) => ({ title: s.title, data: s.data })) }, null, 2));
  console.log(`JSON written to ${outFile}`);
}

await main();
