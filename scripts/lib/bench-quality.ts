import { existsSync } from "node:fs";
import path from "node:path";
import { Readability } from "@mozilla/readability";
import { JSDOM, VirtualConsole } from "jsdom";
import { decodeBody } from "../../shared/content/decode";
import type { BenchSection } from "./bench-section";
import { loadCorpus } from "./corpus";
import { type EvalPage, PUBLISHED_ROWS, evaluate, loadEvalSet } from "./extraction-eval";
import { plainText } from "./plain-text";
import { evaluateCorpusShingles } from "./quality";
import { webgateMainContentText } from "./webgate-text";

/** The dev-set goal of issue 17 (segment F), above every published open-source extractor. */
export const QUALITY_GOAL_F = 0.93;

/** The held-back benchmark's goal of issue 17 (4-shingle F1 over the article body). */
export const HELD_BACK_GOAL_F1 = 0.97;

/** The URL the corpus's expected.html files were resolved against. */
export const CORPUS_PAGE_URL = "http://fakehost/test/page.html";

/** Readability.js 0.6.0 over jsdom, as its README runs it: the article's text, or null for no article. */
export function readabilityJsdomText(page: Pick<EvalPage, "bytes" | "url">, contentType?: string): string | null {
  const html = decodeBody(page.bytes, contentType).text;
  // A virtual console that is not forwarded: jsdom's CSS-parse complaints are not bench output.
  const dom = new JSDOM(html, { url: page.url, virtualConsole: new VirtualConsole() });
  try {
    const article = new Readability(dom.window.document, { serializer: (n: unknown) => n }).parse();
    return article?.content ? plainText(article.content) : null;
  } finally {
    dom.window.close();
  }
}

/**
 * The "quality" section: webgate (main_content true, rendered as plain text) and Readability.js
 * (jsdom) scored in this run on ../shared/extraction-eval as its README says (segment P/R/F),
 * beside the published rows of that README; and the held-back benchmark's method (4-word
 * shingles, page-averaged, shingle-score.ts) on the same pages' labelled segments and on the
 * readability corpus's expected article text.
 */
export function benchQuality(options: { sharedDir: string; progress: (line: string) => void }): { section: BenchSection; f: number } {
  const folder = path.join(options.sharedDir, "extraction-eval");
  const pages = loadEvalSet(folder);
  options.progress(`  quality: ${pages.length} pages, webgate…`);
  const ours = evaluate(pages, (p) => webgateMainContentText(p.bytes));
  options.progress(`  quality: Readability.js (jsdom)…`);
  const theirs = evaluate(pages, (p) => readabilityJsdomText(p));
  const corpusFolder = path.join(options.sharedDir, "corpus", "readability");
  const corpus = existsSync(corpusFolder) ? loadCorpus(corpusFolder) : [];
  options.progress(`  quality: corpus, ${corpus.length} pages…`);
  const utf8 = "text/html; charset=utf-8";
  const oursCorpus = evaluateCorpusShingles(corpus, (p) => webgateMainContentText(p.source, CORPUS_PAGE_URL, utf8));
  const theirsCorpus = evaluateCorpusShingles(corpus, (p) => readabilityJsdomText({ bytes: p.source, url: CORPUS_PAGE_URL }, utf8));
  const fmt = (x: number) => x.toFixed(3);
  const mbps = (r: { ms: number; bytes: number }) => (r.bytes / 1e6 / (r.ms / 1000)).toFixed(2);
  const dev = `extraction-eval (${pages.length})`;
  const cor = `corpus (${corpus.length}), vs expected.html`;
  const rows: (string | number)[][] = [
    ["webgate main_content=true, format text (this run)", dev, fmt(ours.score.precision), fmt(ours.score.recall), fmt(ours.score.accuracy), fmt(ours.score.f), fmt(ours.shingle.precision), fmt(ours.shingle.recall), fmt(ours.shingle.f1), ours.failed.length, mbps(ours)],
    ["Readability.js 0.6.0, jsdom (this run)", dev, fmt(theirs.score.precision), fmt(theirs.score.recall), fmt(theirs.score.accuracy), fmt(theirs.score.f), fmt(theirs.shingle.precision), fmt(theirs.shingle.recall), fmt(theirs.shingle.f1), theirs.failed.length, mbps(theirs)],
    ...PUBLISHED_ROWS.map((r) => [`${r.name} (published)`, dev, fmt(r.precision), fmt(r.recall), fmt(r.accuracy), fmt(r.f), "", "", "", "", ""]),
  ];
  if (corpus.length > 0) {
    rows.push(["webgate main_content=true, format text (this run)", cor, "", "", "", "", fmt(oursCorpus.shingle.precision), fmt(oursCorpus.shingle.recall), fmt(oursCorpus.shingle.f1), oursCorpus.failed.length, mbps(oursCorpus)]);
    rows.push(["Readability.js 0.6.0, jsdom (this run)", cor, "", "", "", "", fmt(theirsCorpus.shingle.precision), fmt(theirsCorpus.shingle.recall), fmt(theirsCorpus.shingle.f1), theirsCorpus.failed.length, mbps(theirsCorpus)]);
  }
  return {
    f: ours.score.f,
    section: {
      title: `Quality: main content on ${pages.length} labelled pages (../shared/extraction-eval, segment P/R/F over plain text) and the held-back benchmark's 4-shingle method`,
      columns: ["extractor", "set", "precision", "recall", "accuracy", "F", "shingle P", "shingle R", "shingle F1", "no output", "MB/s"],
      rows,
      notes: [
        `goals (issue 17): webgate F >= ${QUALITY_GOAL_F} on the dev set; 4-shingle F1 >= ${HELD_BACK_GOAL_F1} on the held-back benchmark (not in ../shared; Readability.js scores 0.947 there)`,
        "shingle P/R/F1: the held-back benchmark's method (scrapinghub article-extraction-benchmark evaluate.py): \\w+ tokens, 4-token shingles as multisets, per-page TP/FP/FN normalized, precision averaged over pages with output, recall over pages with truth",
        "on extraction-eval the truth is the labelled segments only (with: TP/FN, without: FP; unlabelled text counts neither way): a proxy with the benchmark's tokens and page averaging; on the corpus the truth is expected.html's text (Readability's own output, so Readability is near 1 by construction)",
        "webgate's text: the /fetch pipeline with main_content true and format \"text\" (422 no_readable_content scores as empty text); Readability's: its article element as plain text, block elements on their own lines",
        "MB/s: single thread, decoding included, of the page bytes",
      ],
      data: { folder, pages: pages.length, webgate: ours, readabilityJsdom: theirs, published: PUBLISHED_ROWS, corpus: { pages: corpus.length, webgate: oursCorpus, readabilityJsdom: theirsCorpus } },
    },
  };
}
