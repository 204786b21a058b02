import { Parser } from "htmlparser2";
import type { CorpusPage } from "./corpus";
import { type ShingleCounts, type ShingleScore, scoreShingles, totalShingleScore } from "./shingle-score";
import { extractTimed } from "./timed-extract";

/**
 * The corpus quality metric of ../shared/corpus/README.md: token recall of the expected article
 * text in the output, and noise (share of output tokens that are not article text).
 */

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const TOKEN_RUN = /[\p{L}\p{N}\p{M}]+/gu;

/** NFKC + lower case, then maximal runs of letters/digits/marks; each Han/Hiragana/Katakana char is one token. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const run of text.normalize("NFKC").toLowerCase().match(TOKEN_RUN) ?? []) {
    let word = "";
    for (const ch of run) {
      if (CJK.test(ch)) {
        if (word) out.push(word);
        word = "";
        out.push(ch);
      } else word += ch;
    }
    if (word) out.push(word);
  }
  return out;
}

/** All text nodes of an HTML fragment (skipping script/style), joined with spaces. */
export function htmlText(html: string): string {
  const parts: string[] = [];
  let skip = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === "script" || name === "style" || skip > 0) skip++;
      },
      onclosetag() {
        if (skip > 0) skip--;
      },
      ontext(text) {
        if (skip === 0) parts.push(text);
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return parts.join(" ");
}

/** Markdown without link/image destinations and reference-definition lines, so URLs are not words. */
export function markdownText(markdown: string): string {
  return markdown
    .replace(/^\s{0,3}\[[^\]]+\]:\s*\S.*$/gm, "")
    .replace(/\]\((?:<[^>]*>|(?:\\.|[^()\s\\]|\([^()]*\))*)(?:\s+"(?:\\.|[^"\\])*")?\)/g, "]");
}

function counts(tokens: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

export interface Quality {
  recall: number;
  noise: number;
  expectedTokens: number;
  outputTokens: number;
}

/** Recall = C/|E| and noise = 1 - C/|O|, C the multiset intersection of expected and output tokens. */
export function scoreMarkdown(expectedHtml: string, markdown: string): Quality {
  const expected = counts(tokenize(htmlText(expectedHtml)));
  const outputTokens = tokenize(markdownText(markdown));
  const output = counts(outputTokens);
  let common = 0;
  let expectedTotal = 0;
  for (const [t, n] of expected) {
    expectedTotal += n;
    common += Math.min(n, output.get(t) ?? 0);
  }
  return {
    recall: expectedTotal === 0 ? 1 : common / expectedTotal,
    noise: outputTokens.length === 0 ? 0 : 1 - common / outputTokens.length,
    expectedTokens: expectedTotal,
    outputTokens: outputTokens.length,
  };
}

export function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * The held-back benchmark's article-body figure (shingle-score.ts) on the readability corpus:
 * each page's extracted plain text against the text of its expected.html (Readability's own
 * article, so Readability scores near 1 here by construction). `extract` returns null on failure,
 * scored as an empty output.
 */
export function evaluateCorpusShingles(
  pages: readonly CorpusPage[],
  extract: (page: CorpusPage) => string | null,
): { shingle: ShingleScore; failed: string[]; ms: number; bytes: number; pages: Array<{ name: string; shingles: ShingleCounts }> } {
  const { texts, ms, bytes } = extractTimed(pages, extract, (page) => page.source.byteLength);
  const failed = pages.filter((_, i) => texts[i] === null).map((page) => page.name);
  const results = pages.map((page, i) => ({ name: page.name, shingles: scoreShingles(htmlText(page.expectedHtml), texts[i] ?? "") }));
  return { shingle: totalShingleScore(results.map((r) => r.shingles)), failed, ms, bytes, pages: results };
}
