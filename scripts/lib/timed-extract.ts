/**
 * The step the quality scorers share (extraction-eval.ts on the dev set, quality.ts on the
 * corpus): run an extractor over every page, time the calls, and count a throw as a page that
 * produced nothing (`null`), never as the end of the run.
 */
export function extractTimed<P>(
  pages: readonly P[],
  extract: (page: P) => string | null,
  bytesOf: (page: P) => number,
): { texts: Array<string | null>; ms: number; bytes: number } {
  const texts: Array<string | null> = [];
  let ms = 0;
  let bytes = 0;
  for (const page of pages) {
    bytes += bytesOf(page);
    const t0 = performance.now();
    let text: string | null;
    try {
      text = extract(page);
    } catch {
      text = null;
    }
    ms += performance.now() - t0;
    texts.push(text);
  }
  return { texts, ms, bytes };
}
