/**
 * `npx tsx scripts/eval-extraction.ts [--sample N] [--split all|tune|holdout] [--extractor ours|readability|pipeline] [--dump file]`
 * Scores an extractor on the development set (../shared/extraction-eval) and lists the worst pages.
 */
import { writeFileSync } from "node:fs";
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { decodeBody } from "../shared/content/decode";
import { MAIN_CONTENT_PRUNED, extractMainContent } from "../shared/content/extract/main-content";
import { parseLightDocument } from "../shared/content/light-dom";
import { isHoldout, loadEvalSet, scorePage, totalScore, type SegmentCounts } from "./lib/extraction-eval";
import { plainText } from "./lib/plain-text";
import { webgateMainContentText } from "./lib/webgate-text";
import { findSharedDir } from "./lib/shared-dir";
import path from "node:path";

const args = process.argv.slice(2);
const opt = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : def;
};
const shared = findSharedDir();
if (shared === null) throw new Error("no shared folder");
let pages = loadEvalSet(path.join(shared, "extraction-eval"));
const split = opt("split", "all");
if (split !== "all") pages = pages.filter((p) => isHoldout(p.file) === (split === "holdout"));
const sample = Number(opt("sample", "0"));
if (sample > 0) pages = pages.filter((_, i) => i % Math.ceil(pages.length / sample) === 0);
const which = opt("extractor", "ours");
const only = opt("only", "");
if (only) pages = pages.filter((p) => p.file.includes(only));

function extract(html: string): { text: string; reason: string } {
  if (which === "readability") {
    const { document } = parseHTML(html) as unknown as { document: never };
    const article = new Readability(document, { serializer: (n: unknown) => n }).parse();
    return { text: article?.content ? plainText(article.content) : "", reason: article ? "article" : "none" };
  }
  const doc = parseLightDocument(html, { pruned: MAIN_CONTENT_PRUNED });
  const r = extractMainContent(doc.body, { title: doc.title.replace(/\s+/g, " ").trim() });
  return { text: r.element ? plainText(r.element) : plainText(parseLightDocument(html).body), reason: r.reason };
}

const counts: SegmentCounts[] = [];
const rows: { file: string; c: SegmentCounts; reason: string; missed: string[]; leaked: string[]; len: number }[] = [];
const reasons = new Map<string, number>();
let errors = 0;
const t0 = performance.now();
for (const page of pages) {
  let text: string | null = null;
  let reason = "error";
  try {
    // "pipeline": the /fetch pipeline on the page's bytes (format "text"), as the quality suite scores it.
    if (which === "pipeline") ({ text, reason } = { text: webgateMainContentText(page.bytes), reason: "pipeline" });
    else ({ text, reason } = extract(decodeBody(page.bytes, undefined).text));
  } catch (e) {
    errors++;
    console.error(page.file, (e as Error).message);
  }
  const c = scorePage(page, text);
  counts.push(c);
  reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  const hay = (text ?? "").replace(/\s+/g, " ");
  const norm = (s: string) => s.replace(/\s+/g, " ").trim();
  rows.push({ file: page.file, c, reason, len: hay.length, missed: page.with.filter((s) => !hay.includes(norm(s))), leaked: page.without.filter((s) => hay.includes(norm(s))) });
  if (args.includes("--show")) console.log(text);
}
const ms = performance.now() - t0;
const t = totalScore(counts);
console.log(`${which} ${split} pages=${pages.length} P=${t.precision.toFixed(4)} R=${t.recall.toFixed(4)} F=${t.f.toFixed(4)} acc=${t.accuracy.toFixed(4)} errors=${errors} ${ms.toFixed(0)}ms`);
console.log([...reasons].map(([k, v]) => `${k}:${v}`).join(" "));
const dump = opt("dump", "");
if (dump) {
  rows.sort((a, b) => b.c.fn + b.c.fp - (a.c.fn + a.c.fp));
  writeFileSync(dump, rows.filter((r) => r.c.fn + r.c.fp > 0).map((r) => `${r.file} [${r.reason}, ${r.len}] FN=${r.c.fn} FP=${r.c.fp}\n  missed: ${JSON.stringify(r.missed)}\n  leaked: ${JSON.stringify(r.leaked)}`).join("\n"));
}
