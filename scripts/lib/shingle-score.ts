/**
 * The article-body metric of the public article-extraction benchmark (scrapinghub's
 * article-extraction-benchmark, `evaluate.py`), reimplemented from its method:
 * - tokens: maximal runs of word characters (Python's Unicode `\w+`: letters, digits and `_`;
 *   case kept, no normalization, so combining marks split a word as they do there);
 * - shingles: every run of 4 consecutive tokens, counted as a multiset; a text of 1 to 3 tokens
 *   is one shingle of all of them, an empty text has none;
 * - per page: TP = Σ min(true, predicted), FP = Σ predicted − true (where more), FN = Σ true −
 *   predicted (where more), then divided by TP + FP + FN so that long pages weigh no more;
 * - precision is the mean over pages that predicted something (TP + FP > 0), recall the mean over
 *   pages whose truth has text (TP + FN > 0): an empty output costs recall only; F1 = 2PR/(P+R);
 * - accuracy: the mean of "the token lists are equal".
 */

export const SHINGLE_SIZE = 4;

/** Python's `re.findall(r"\w+", text)` with Unicode semantics. */
const WORD = /[\p{L}\p{N}_]+/gu;

export function shingleTokens(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** The multiset of `n`-token shingles of `tokens` (keys are the tokens joined by a space, which no token holds). */
export function shingles(tokens: readonly string[], n = SHINGLE_SIZE): Map<string, number> {
  const out = new Map<string, number>();
  const last = Math.max(1, tokens.length - n + 1);
  for (let i = 0; i < last; i++) {
    const shingle = tokens.slice(i, i + n);
    if (shingle.length === 0) continue;
    const key = shingle.join(" ");
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/** One page's normalized TP, FP and FN (each in [0, 1], summing to 1 unless both texts are empty). */
export interface ShingleCounts {
  tp: number;
  fp: number;
  fn: number;
}

function normalized(tp: number, fp: number, fn: number): ShingleCounts {
  const s = tp + fp + fn;
  return s > 0 ? { tp: tp / s, fp: fp / s, fn: fn / s } : { tp, fp, fn };
}

/** `evaluate.py`'s string_shingle_matching: `truth` against `predicted`. */
export function scoreShingles(truth: string, predicted: string): ShingleCounts {
  const t = shingles(shingleTokens(truth));
  const p = shingles(shingleTokens(predicted));
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [key, tc] of t) {
    const pc = p.get(key) ?? 0;
    tp += Math.min(tc, pc);
    fn += Math.max(0, tc - pc);
  }
  for (const [key, pc] of p) fp += Math.max(0, pc - (t.get(key) ?? 0));
  return normalized(tp, fp, fn);
}

/**
 * The same matching for a page whose truth is known only in labelled segments (the dev set of
 * ../shared/extraction-eval has `with` and `without` segments, not the article's whole text):
 * TP and FN over the shingles of the `with` segments (each segment shingled on its own), FP over
 * the shingles of the `without` segments found in the output beyond what the `with` segments
 * account for. A segment of k < 4 tokens is one k-token shingle, looked for among the output's
 * k-token runs (in the whole text it is part of longer shingles). Unlabelled text in the output
 * counts neither way: this is a proxy of the benchmark's figure (its tokenization, shingling and
 * page averaging), not that figure.
 */
export function scoreSegmentShingles(withSegments: readonly string[], withoutSegments: readonly string[], predicted: string): ShingleCounts {
  const tokens = shingleTokens(predicted);
  const runs = new Map<number, Map<string, number>>();
  const outputRuns = (k: number) => {
    let m = runs.get(k);
    if (m === undefined) {
      m = shingles(tokens, k);
      runs.set(k, m);
    }
    return m;
  };
  const gather = (segments: readonly string[]) => {
    const out = new Map<number, Map<string, number>>();
    for (const segment of segments) {
      const st = shingleTokens(segment);
      const k = Math.min(SHINGLE_SIZE, st.length);
      if (k === 0) continue;
      let m = out.get(k);
      if (m === undefined) out.set(k, (m = new Map<string, number>()));
      for (const [key, c] of shingles(st)) m.set(key, (m.get(key) ?? 0) + c);
    }
    return out;
  };
  const t = gather(withSegments);
  const x = gather(withoutSegments);
  let tp = 0;
  let fn = 0;
  let fp = 0;
  for (const [k, tk] of t) {
    for (const [key, tc] of tk) {
      const pc = outputRuns(k).get(key) ?? 0;
      tp += Math.min(tc, pc);
      fn += Math.max(0, tc - pc);
    }
  }
  for (const [k, xk] of x) {
    for (const [key, xc] of xk) fp += Math.min(xc, Math.max(0, (outputRuns(k).get(key) ?? 0) - (t.get(k)?.get(key) ?? 0)));
  }
  return normalized(tp, fp, fn);
}

function precisionOf({ tp, fp, fn }: ShingleCounts): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fp === 0) return 0;
  return tp / (tp + fp);
}

function recallOf({ tp, fp, fn }: ShingleCounts): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fn === 0) return 0;
  return tp / (tp + fn);
}

/** A page's own precision, recall and F1 (for lists of worst pages; the set's figure averages P and R first). */
export function pageShingleF1(c: ShingleCounts): { precision: number; recall: number; f1: number } {
  // Nothing to match either way (no labelled text, nothing found): a perfect page, not a failed one.
  if (c.tp + c.fp + c.fn === 0) return { precision: 1, recall: 1, f1: 1 };
  const precision = c.tp + c.fp > 0 ? precisionOf(c) : 0;
  const recall = c.tp + c.fn > 0 ? recallOf(c) : 1;
  return { precision, recall, f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall) };
}

export interface ShingleScore {
  precision: number;
  recall: number;
  f1: number;
  /** Pages that counted towards precision (the output had text) and towards recall (the truth had text). */
  precisionPages: number;
  recallPages: number;
}

/** `evaluate.py`'s metrics_from_tp_fp_fns: page-averaged precision and recall, and their F1. */
export function totalShingleScore(pages: readonly ShingleCounts[]): ShingleScore {
  const withOutput = pages.filter((c) => c.tp + c.fp > 0);
  const withTruth = pages.filter((c) => c.tp + c.fn > 0);
  const avg = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const precision = avg(withOutput.map(precisionOf));
  const recall = avg(withTruth.map(recallOf));
  return { precision, recall, f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall), precisionPages: withOutput.length, recallPages: withTruth.length };
}

/** `evaluate.py`'s get_accuracy: whether both texts have the same tokens in the same order. */
export function tokensEqual(truth: string, predicted: string): boolean {
  const a = shingleTokens(truth);
  const b = shingleTokens(predicted);
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
