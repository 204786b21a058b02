/**
 * `npx tsx scripts/eval-extraction.ts [--set dev|corpus] [--sample N] [--split all|tune|holdout]
 *   [--extractor pipeline (default: what /fetch answers)|ours|readability] [--only name] [--dump file] [--worst N] [--show]`
 *
 * Scores an extractor on the development set (../shared/extraction-eval: segment P/R/F, and the
 * held-back benchmark's 4-shingle figure over the labelled segments) or on the readability
 * corpus (../shared/corpus: 4-shingle figure against expected.html's text, and token recall and
 * noise), and lists the worst pages. `--dump` writes every imperfect page with what it missed and
 * leaked; `--worst N` prints the N pages with the lowest shingle F1.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { decodeBody } from "../shared/content/decode";
import { MAIN_CONTENT_PRUNED, extractMainContent } from "../shared/content/extract/main-content";
import { parseLightDocument } from "../shared/content/light-dom";
import { loadCorpus } from "./lib/corpus";
import { isHoldout, loadEvalSet, scorePage, totalScore, type SegmentCounts } from "./lib/extraction-eval";
import { plainText } from "./lib/plain-text";
import { htmlText, mean, scoreMarkdown } from "./lib/quality";
import { findSharedDir } from "./lib/shared-dir";
import { type ShingleCounts, pageShingleF1, scoreSegmentShingles, scoreShingles, totalShingleScore } from "./lib/shingle-score";
import { webgateMainContentText } from "./lib/webgate-text";

const args = process.argv.slice(2);
const opt = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : def;
};
const shared = findSharedDir();
if (shared === null) throw new Error("no shared folder");
// The default is what /fetch answers; "ours" (the extractor with this script's own plain text, which
// leaves <noscript> out) reads lower on pages whose article is a <noscript> copy.
const which = opt("extractor", "pipeline");
const set = opt("set", "dev");

/** The extractor's plain text of one page, and why it chose what it chose. */
function extract(bytes: Uint8Array, url: string, contentType?: string): { text: string; reason: string } {
  // "pipeline": the /fetch pipeline on the page's bytes (format "text"), as the quality suite scores it.
  if (which === "pipeline") return { text: webgateMainContentText(bytes, url, contentType), reason: "pipeline" };
  const html = decodeBody(bytes, contentType).text;
  if (which === "readability") {
    const { document } = parseHTML(html) as unknown as { document: never };
    const article = new Readability(document, { serializer: (n: unknown) => n }).parse();
    return { text: article?.content ? plainText(article.content) : "", reason: article ? "article" : "none" };
  }
  const doc = parseLightDocument(html, { pruned: MAIN_CONTENT_PRUNED });
  const r = extractMainContent(doc.body, { title: doc.title.replace(/\s+/g, " ").trim() });
  return { text: r.element ? plainText(r.element) : plainText(parseLightDocument(html).body), reason: r.reason };
}

interface Row {
  file: string;
  reason: string;
  len: number;
  shingles: ShingleCounts;
  c?: SegmentCounts;
  missed?: string[];
  leaked?: string[];
  recall?: number;
  noise?: number;
}

const rows: Row[] = [];
const reasons = new Map<string, number>();
let errors = 0;
const t0 = performance.now();
const run = (name: string, bytes: Uint8Array, url: string, contentType?: string): { text: string | null; reason: string } => {
  try {
    const { text, reason } = extract(bytes, url, contentType);
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    if (args.includes("--show")) console.log(text);
    return { text, reason };
  } catch (e) {
    errors++;
    console.error(name, (e as Error).message);
    return { text: null, reason: "error" };
  }
};
const only = opt("only", "");
const sample = Number(opt("sample", "0"));
const sampled = <T>(xs: T[]) => (sample > 0 ? xs.filter((_, i) => i % Math.ceil(xs.length / sample) === 0) : xs);

if (set === "corpus") {
  const pages = sampled(loadCorpus(path.join(shared, "corpus", "readability")).filter((p) => p.name.includes(only)));
  for (const page of pages) {
    const { text, reason } = run(page.name, page.source, "http://fakehost/test/page.html", "text/html; charset=utf-8");
    const q = scoreMarkdown(page.expectedHtml, text ?? "");
    rows.push({ file: page.name, reason, len: (text ?? "").length, shingles: scoreShingles(htmlText(page.expectedHtml), text ?? ""), recall: q.recall, noise: q.noise });
  }
  const s = totalShingleScore(rows.map((r) => r.shingles));
  console.log(
    `${which} corpus pages=${pages.length} shingle P=${s.precision.toFixed(4)} R=${s.recall.toFixed(4)} F1=${s.f1.toFixed(4)} token recall=${mean(rows.map((r) => r.recall!)).toFixed(4)} noise=${mean(rows.map((r) => r.noise!)).toFixed(4)} errors=${errors} ${(performance.now() - t0).toFixed(0)}ms`,
  );
} else {
  let pages = loadEvalSet(path.join(shared, "extraction-eval"));
  const split = opt("split", "all");
  if (split !== "all") pages = pages.filter((p) => isHoldout(p.file) === (split === "holdout"));
  pages = sampled(pages.filter((p) => p.file.includes(only)));
  const norm = (s: string) => s.replace(/\s+/g, " ").trim();
  for (const page of pages) {
    const { text, reason } = run(page.file, page.bytes, page.url);
    const hay = norm(text ?? "");
    rows.push({
      file: page.file,
      reason,
      len: hay.length,
      c: scorePage(page, text),
      shingles: scoreSegmentShingles(page.with, page.without, text ?? ""),
      missed: page.with.filter((s) => !hay.includes(norm(s))),
      leaked: page.without.filter((s) => hay.includes(norm(s))),
    });
  }
  const t = totalScore(rows.map((r) => r.c!));
  const s = totalShingleScore(rows.map((r) => r.shingles));
  console.log(
    `${which} ${split} pages=${pages.length} P=${t.precision.toFixed(4)} R=${t.recall.toFixed(4)} F=${t.f.toFixed(4)} acc=${t.accuracy.toFixed(4)} shingle P=${s.precision.toFixed(4)} R=${s.recall.toFixed(4)} F1=${s.f1.toFixed(4)} errors=${errors} ${(performance.now() - t0).toFixed(0)}ms`,
  );
  console.log([...reasons].map(([k, v]) => `${k}:${v}`).join(" "));
}

const describe = (r: Row) => {
  const f = pageShingleF1(r.shingles);
  const seg = r.c ? ` FN=${r.c.fn} FP=${r.c.fp}` : ` recall=${r.recall!.toFixed(3)} noise=${r.noise!.toFixed(3)}`;
  const detail = r.missed ? `\n  missed: ${JSON.stringify(r.missed)}\n  leaked: ${JSON.stringify(r.leaked)}` : "";
  return `${r.file} [${r.reason}, ${r.len}] shingle P=${f.precision.toFixed(3)} R=${f.recall.toFixed(3)} F1=${f.f1.toFixed(3)}${seg}${detail}`;
};
const byF1 = [...rows].sort((a, b) => pageShingleF1(a.shingles).f1 - pageShingleF1(b.shingles).f1);
const worst = Number(opt("worst", "0"));
if (worst > 0) for (const r of byF1.slice(0, worst)) console.log(describe(r));
const dump = opt("dump", "");
if (dump) writeFileSync(dump, byF1.filter((r) => pageShingleF1(r.shingles).f1 < 1 || (r.c !== undefined && r.c.fn + r.c.fp > 0)).map(describe).join("\n"));
