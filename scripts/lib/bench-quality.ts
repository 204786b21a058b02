import path from "node:path";
import { Readability } from "@mozilla/readability";
import { JSDOM, VirtualConsole } from "jsdom";
import { decodeBody } from "../../shared/content/decode";
import type { BenchSection } from "./bench-section";
import { type EvalPage, PUBLISHED_ROWS, evaluate, loadEvalSet } from "./extraction-eval";
import { plainText } from "./plain-text";
import { webgateMainContentText } from "./webgate-text";

/** The dev-set goal of issue 17 (segment F), above every published open-source extractor. */
export const QUALITY_GOAL_F = 0.93;

/** Readability.js 0.6.0 over jsdom, as its README runs it: the article's text, or null for no article. */
export function readabilityJsdomText(page: EvalPage): string | null {
  const html = decodeBody(page.bytes, undefined).text;
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
 * (jsdom) scored in this run on ../shared/extraction-eval as its README says, beside the
 * published rows of that README.
 */
export function benchQuality(options: { sharedDir: string; progress: (line: string) => void }): { section: BenchSection; f: number } {
  const folder = path.join(options.sharedDir, "extraction-eval");
  const pages = loadEvalSet(folder);
  options.progress(`  quality: ${pages.length} pages, webgate…`);
  const ours = evaluate(pages, (p) => webgateMainContentText(p.bytes));
  options.progress(`  quality: Readability.js (jsdom)…`);
  const theirs = evaluate(pages, readabilityJsdomText);
  const fmt = (x: number) => x.toFixed(3);
  const mbps = (r: { ms: number; bytes: number }) => (r.bytes / 1e6 / (r.ms / 1000)).toFixed(2);
  return {
    f: ours.score.f,
    section: {
      title: `Quality: main content on ${pages.length} labelled pages (../shared/extraction-eval, segment P/R/F over plain text)`,
      columns: ["extractor", "precision", "recall", "accuracy", "F", "no output", "MB/s"],
      rows: [
        ["webgate main_content=true, format text (this run)", fmt(ours.score.precision), fmt(ours.score.recall), fmt(ours.score.accuracy), fmt(ours.score.f), ours.failed.length, mbps(ours)],
        ["Readability.js 0.6.0, jsdom (this run)", fmt(theirs.score.precision), fmt(theirs.score.recall), fmt(theirs.score.accuracy), fmt(theirs.score.f), theirs.failed.length, mbps(theirs)],
        ...PUBLISHED_ROWS.map((r) => [`${r.name} (published)`, fmt(r.precision), fmt(r.recall), fmt(r.accuracy), fmt(r.f), "", ""]),
      ],
      notes: [
        `goal (issue 17): webgate F >= ${QUALITY_GOAL_F}`,
        "webgate's text: the /fetch pipeline with main_content true and format \"text\" (422 no_readable_content scores as empty text); Readability's: its article element as plain text, block elements on their own lines",
        "MB/s: single thread, decoding included, of the page bytes",
      ],
      data: { folder, pages: pages.length, webgate: ours, readabilityJsdom: theirs, published: PUBLISHED_ROWS },
    },
  };
}
