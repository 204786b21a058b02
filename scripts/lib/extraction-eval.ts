import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { type ShingleCounts, type ShingleScore, scoreSegmentShingles, totalShingleScore } from "./shingle-score";
import { extractTimed } from "./timed-extract";

/**
 * The main-content development set of ../shared/extraction-eval (see its README): 990 pages, each
 * with `with` segments the main content must contain and `without` segments it must not, scored
 * over the extracted plain text after whitespace collapse (segment precision, recall, F).
 */

export interface EvalPage {
  url: string;
  file: string;
  /** The page's original bytes (each page carries its own charset). */
  bytes: Uint8Array;
  with: string[];
  without: string[];
}

export interface SegmentCounts {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
}

export interface SegmentScore extends SegmentCounts {
  precision: number;
  recall: number;
  accuracy: number;
  f: number;
}

/** Loads the set from its folder (evaldata.json + html/<file>.gz), in the file's order. */
export function loadEvalSet(folder: string): EvalPage[] {
  const data = JSON.parse(readFileSync(path.join(folder, "evaldata.json"), "utf8")) as Record<string, { file: string; with?: string[]; without?: string[] }>;
  return Object.entries(data).flatMap(([url, entry]) => {
    const file = path.join(folder, "html", `${entry.file}.gz`);
    if (!existsSync(file)) return [];
    return [{ url, file: entry.file, bytes: gunzipSync(readFileSync(file)), with: entry.with ?? [], without: entry.without ?? [] }];
  });
}

const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

/** One page's counts; `text` null means the extraction failed (TP = FP = 0). */
export function scorePage(page: Pick<EvalPage, "with" | "without">, text: string | null): SegmentCounts {
  const hay = text === null ? "" : collapse(text);
  const found = (s: string) => text !== null && hay.includes(collapse(s));
  let tp = 0;
  let fp = 0;
  for (const s of page.with) if (found(s)) tp++;
  for (const s of page.without) if (found(s)) fp++;
  return { tp, fn: page.with.length - tp, fp, tn: page.without.length - fp };
}

/** Sums page counts into precision, recall, accuracy and F. */
export function totalScore(counts: SegmentCounts[]): SegmentScore {
  const sum = counts.reduce((a, c) => ({ tp: a.tp + c.tp, fn: a.fn + c.fn, fp: a.fp + c.fp, tn: a.tn + c.tn }), { tp: 0, fn: 0, fp: 0, tn: 0 });
  const precision = sum.tp + sum.fp === 0 ? 0 : sum.tp / (sum.tp + sum.fp);
  const recall = sum.tp + sum.fn === 0 ? 0 : sum.tp / (sum.tp + sum.fn);
  const all = sum.tp + sum.fn + sum.fp + sum.tn;
  return { ...sum, precision, recall, accuracy: all === 0 ? 0 : (sum.tp + sum.tn) / all, f: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall) };
}

/** The published rows of the set's README (trafilatura's evaluation, 2026-08-04). */
export const PUBLISHED_ROWS: ReadonlyArray<{ name: string; precision: number; recall: number; accuracy: number; f: number }> = [
  { name: "trafilatura 2.2.0 (standard)", precision: 0.906, recall: 0.943, accuracy: 0.923, f: 0.924 },
  { name: "trafilatura 2.2.0 (precision)", precision: 0.925, recall: 0.915, accuracy: 0.921, f: 0.92 },
  { name: "magic-html 0.1.8", precision: 0.887, recall: 0.891, accuracy: 0.889, f: 0.889 },
  { name: "justext 3.0.2 (custom)", precision: 0.864, recall: 0.859, accuracy: 0.862, f: 0.862 },
  { name: "readability-lxml 0.8.4.1", precision: 0.898, recall: 0.764, accuracy: 0.839, f: 0.826 },
  { name: "baseline (text of p/code/quote elements)", precision: 0.767, recall: 0.869, accuracy: 0.803, f: 0.815 },
];

/**
 * A stable split of the set by file name (FNV-1a), for tuning on one part and checking on the
 * other: `holdout(file)` is true for about `share` of the pages.
 */
export function isHoldout(file: string, share = 0.25): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < file.length; i++) h = Math.imul(h ^ file.charCodeAt(i), 0x01000193) >>> 0;
  return h / 2 ** 32 < share;
}

/** One page's result in {@link evaluate}: its segment counts, its shingle counts and the text length scored. */
export interface PageResult {
  file: string;
  segments: SegmentCounts;
  shingles: ShingleCounts;
  chars: number;
  failed: boolean;
}

/**
 * Scores `extract` (page bytes → plain text, or null when it failed) over `pages`: segment
 * P/R/F as the set's README says, and the held-back benchmark's 4-shingle figure over the
 * labelled segments ({@link scoreSegmentShingles}: a proxy, the set has no whole article text).
 */
export function evaluate(
  pages: EvalPage[],
  extract: (page: EvalPage) => string | null,
): { score: SegmentScore; shingle: ShingleScore; failed: string[]; ms: number; bytes: number; pages: PageResult[] } {
  const { texts, ms, bytes } = extractTimed(pages, extract, (page) => page.bytes.byteLength);
  const failed = pages.filter((_, i) => texts[i] === null).map((page) => page.file);
  const results: PageResult[] = pages.map((page, i) => {
    const text = texts[i] ?? null;
    return { file: page.file, segments: scorePage(page, text), shingles: scoreSegmentShingles(page.with, page.without, text ?? ""), chars: text?.length ?? 0, failed: text === null };
  });
  return { score: totalScore(results.map((r) => r.segments)), shingle: totalShingleScore(results.map((r) => r.shingles)), failed, ms, bytes, pages: results };
}
