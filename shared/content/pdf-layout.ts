/**
 * PDF text layout: the positioned text runs that pdf.js extracts (see pdf-worker.ts) become
 * readable text. Pure: no I/O, no pdf.js.
 *
 * - Reading order: a page with a clear vertical gutter is read column by column (left column,
 *   then right), with lines that span the gutter (titles, full-width figures' captions) kept in
 *   place between the column blocks; lines are read top to bottom, runs left to right.
 * - Lines of one paragraph are joined with a space; a line ending in a hyphen after a letter,
 *   followed by a line starting with a lower-case letter, is joined without the hyphen.
 *   A vertical gap clearly larger than the column's usual line spacing starts a new paragraph.
 * - Headers and footers: the top-most and bottom-most lines of each page that repeat (digits
 *   ignored, so "Page 3 of 9" repeats) on at least half of the pages (and at least 3) are removed.
 * - Lines set clearly larger than the body text become headings (`#`/`##` in Markdown).
 * - Each page starts with a page marker: `<!-- page N -->` in Markdown, `[page N]` in text.
 */

/** One text run: its string, the baseline origin (PDF user space, y grows upwards), width and font size. */
export interface PdfTextRun {
  str: string;
  x: number;
  y: number;
  width: number;
  size: number;
}

export interface PdfPageText {
  width: number;
  height: number;
  runs: PdfTextRun[];
}

export interface PdfLayoutInput {
  pages: PdfPageText[];
  /** Pages in the document (more than `pages.length` when the page cap cut it). */
  pageCount: number;
  /** The document's own title (Info dictionary or XMP), if any. */
  metadataTitle: string;
  format: "markdown" | "text";
}

export interface PdfLayout {
  content: string;
  title: string;
  /** Characters of text found (without markers): 0 means no text layer. */
  textChars: number;
  truncated: boolean;
}

interface Line {
  text: string;
  y: number;
  size: number;
  /** Left edge, for column assignment. */
  x: number;
  right: number;
}

/** Markers of pages, chosen so they cannot be mistaken for document text. */
export function pageMarker(page: number, format: "markdown" | "text"): string {
  return format === "markdown" ? `<!-- page ${page} -->` : `[page ${page}]`;
}

export function layoutPdf(input: PdfLayoutInput): PdfLayout {
  const pageLines = input.pages.map((page) => orderedLines(page));
  removeRepeatedEdges(pageLines);
  const bodySize = medianSize(pageLines.flat());
  let title = input.metadataTitle.replace(/\s+/g, " ").trim();
  let textChars = 0;
  const parts: string[] = [];
  pageLines.forEach((lines, index) => {
    const paragraphs = toParagraphs(lines, bodySize);
    textChars += paragraphs.reduce((n, p) => n + p.text.length, 0);
    if (title === "" && index === 0) title = firstHeading(paragraphs);
    const rendered = paragraphs.map((p) => (input.format === "markdown" && p.level > 0 ? `${"#".repeat(p.level)} ${p.text}` : p.text));
    parts.push([pageMarker(index + 1, input.format), ...rendered].join("\n\n"));
  });
  const truncated = input.pageCount > input.pages.length;
  if (truncated) {
    const note = `pages 1-${input.pages.length} of ${input.pageCount}; the rest is over the page limit`;
    parts.push(input.format === "markdown" ? `<!-- truncated: ${note} -->` : `[truncated: ${note}]`);
  }
  return { content: parts.join("\n\n") + "\n", title, textChars, truncated };
}

/** The page's lines in reading order (columns detected). */
function orderedLines(page: PdfPageText): Line[] {
  const runs = page.runs.filter((r) => r.str.trim() !== "" && Number.isFinite(r.x) && Number.isFinite(r.y));
  if (runs.length === 0) return [];
  const gutter = findGutter(runs, page.width);
  if (gutter === null) return toLines(runs);
  const left: PdfTextRun[] = [];
  const right: PdfTextRun[] = [];
  const spanning: PdfTextRun[] = [];
  for (const run of runs) {
    // Runs that cross into the gutter (the few the tolerance let through) span both columns.
    if (Math.min(run.x + run.width, gutter.end) - Math.max(run.x, gutter.start) > 1) spanning.push(run);
    else if (run.x < gutter.start) left.push(run);
    else right.push(run);
  }
  // Spanning lines cut the page into bands; each band is read left column first, then right.
  // toLines orders top to bottom, so a line's band is the number of spanning lines above it
  // (a binary search), and each column's lines arrive band by band.
  const spanLines = toLines(spanning);
  const bandOf = (y: number) => {
    let lo = 0;
    let hi = spanLines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (spanLines[mid]!.y > y) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const bands: Line[][] = Array.from({ length: spanLines.length + 1 }, () => []);
  for (const line of [...toLines(left), ...toLines(right)]) bands[bandOf(line.y)]!.push(line);
  // Concatenated without spreading into push(): a page can hold more lines than a call takes arguments.
  const out: Line[] = [];
  bands.forEach((band, i) => {
    if (i > 0) out.push(spanLines[i - 1]!);
    for (const line of band) out.push(line);
  });
  return out;
}

/**
 * A vertical band in the middle half of the page that (almost) no run crosses, at least 10 pt
 * wide, with a real share of the text on both sides; null for single-column pages.
 */
function findGutter(runs: PdfTextRun[], pageWidth: number): { start: number; end: number } | null {
  const width = Math.max(1, Math.ceil(Math.min(pageWidth, 10_000)));
  // A difference array, then a prefix sum: linear in runs plus page width.
  const cover = new Int32Array(width + 2);
  for (const run of runs) {
    cover[clampInt(run.x, 0, width)]!++;
    cover[clampInt(run.x + run.width, 0, width)]!--;
  }
  for (let x = 1; x <= width; x++) cover[x]! += cover[x - 1]!;
  // A few spanning runs (a centred title) may cross the gutter.
  const tolerance = Math.floor(runs.length * 0.1);
  const candidates: Array<{ start: number; end: number }> = [];
  let runStart = -1;
  const lo = Math.floor(width * 0.25);
  const hi = Math.ceil(width * 0.75);
  for (let x = lo; x <= hi; x++) {
    const open = x < hi && cover[x]! <= tolerance;
    if (open && runStart < 0) runStart = x;
    if (!open && runStart >= 0) {
      if (x - runStart >= 10) candidates.push({ start: runStart, end: x });
      runStart = -1;
    }
  }
  // The widest gap with a real share of the text on each side (a gap right of a single column,
  // or between a column and a centred title, is no gutter).
  candidates.sort((a, b) => b.end - b.start - (a.end - a.start));
  for (const gap of candidates) {
    let leftChars = 0;
    let rightChars = 0;
    for (const run of runs) {
      if (run.x + run.width <= gap.start + 1) leftChars += run.str.length;
      else if (run.x >= gap.end - 1) rightChars += run.str.length;
    }
    const total = leftChars + rightChars;
    if (total > 0 && leftChars / total >= 0.2 && rightChars / total >= 0.2) return gap;
  }
  return null;
}

/** Runs grouped into lines by baseline, top to bottom; runs of a line left to right. */
function toLines(runs: PdfTextRun[]): Line[] {
  const sorted = [...runs].sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: Array<{ y: number; size: number; runs: PdfTextRun[] }> = [];
  for (const run of sorted) {
    const last = lines.at(-1);
    if (last !== undefined && Math.abs(last.y - run.y) <= Math.max(1, 0.5 * Math.min(last.size, run.size || last.size))) {
      last.runs.push(run);
      last.size = Math.max(last.size, run.size);
    } else {
      lines.push({ y: run.y, size: run.size, runs: [run] });
    }
  }
  return lines.map((line) => {
    const ordered = line.runs.sort((a, b) => a.x - b.x);
    let text = "";
    let end = Number.NEGATIVE_INFINITY;
    for (const run of ordered) {
      const gap = run.x - end;
      const needsSpace = text !== "" && !/\s$/.test(text) && !/^\s/.test(run.str) && gap > 0.15 * Math.max(1, run.size);
      text += (needsSpace ? " " : "") + run.str;
      end = Math.max(end, run.x + run.width);
    }
    const first = ordered[0]!;
    return { text: text.replace(/\s+/g, " ").trim(), y: line.y, size: line.size, x: first.x, right: end };
  });
}

interface Paragraph {
  text: string;
  /** 0 for body text, 1 or 2 for headings. */
  level: number;
}

function toParagraphs(lines: Line[], bodySize: number): Paragraph[] {
  const gaps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const gap = lines[i - 1]!.y - lines[i]!.y;
    if (gap > 0) gaps.push(gap);
  }
  const usualGap = median(gaps) ?? bodySize * 1.2;
  const paragraphs: Paragraph[] = [];
  let current: { lines: string[]; level: number } | undefined;
  let previous: Line | undefined;
  const flush = () => {
    if (current !== undefined) paragraphs.push({ text: joinLines(current.lines), level: current.level });
    current = undefined;
  };
  for (const line of lines) {
    if (line.text === "") continue;
    const level = headingLevel(line.size, bodySize);
    const gap = previous === undefined ? 0 : previous.y - line.y;
    // A new column (the line is above the previous one) or a gap well beyond the line spacing.
    const breaks = previous === undefined || gap <= 0 || gap > usualGap * 1.45 || level !== current?.level;
    if (breaks) flush();
    current ??= { lines: [], level };
    current.lines.push(line.text);
    previous = line;
  }
  flush();
  return paragraphs;
}

function headingLevel(size: number, bodySize: number): number {
  if (bodySize <= 0) return 0;
  if (size >= bodySize * 1.6) return 1;
  if (size >= bodySize * 1.25) return 2;
  return 0;
}

/** Joins the lines of a paragraph, undoing end-of-line hyphenation ("infor-" + "mation"). */
export function joinLines(lines: string[]): string {
  let text = "";
  for (const line of lines) {
    if (text === "") text = line;
    else if (/\p{L}-$/u.test(text) && /^\p{Ll}/u.test(line)) text = text.slice(0, -1) + line;
    else text += ` ${line}`;
  }
  return text;
}

function firstHeading(paragraphs: Paragraph[]): string {
  const heading = paragraphs.find((p) => p.level > 0);
  return heading === undefined ? "" : heading.text.slice(0, 300);
}

/** Removes top and bottom lines that repeat across pages (running headers, footers, page numbers). */
function removeRepeatedEdges(pages: Line[][]): void {
  if (pages.length < 3) return;
  const threshold = Math.max(3, Math.ceil(pages.length / 2));
  for (const edge of ["top", "bottom"] as const) {
    // Only a line set apart from the text (a gap over two line heights) can be a running header
    // or footer; the first line of body text repeating a pattern ("Section 3 …") is not one.
    const pick = (lines: Line[]) => {
      if (lines.length === 0) return undefined;
      const line = edge === "top" ? topLine(lines) : bottomLine(lines);
      const neighbour = nearestLine(lines, line, edge);
      return neighbour === undefined || Math.abs(line.y - neighbour.y) > 2 * Math.max(line.size, neighbour.size) ? line : undefined;
    };
    const counts = new Map<string, number>();
    for (const lines of pages) {
      const line = pick(lines);
      if (line !== undefined) counts.set(edgeKey(line.text), (counts.get(edgeKey(line.text)) ?? 0) + 1);
    }
    pages.forEach((lines, index) => {
      const line = pick(lines);
      // A page's only line is its content, not a header.
      if (line !== undefined && lines.length > 1 && (counts.get(edgeKey(line.text)) ?? 0) >= threshold) pages[index] = lines.filter((l) => l !== line);
    });
  }
}

/** The line closest below (top edge) or above (bottom edge) `line`. */
function nearestLine(lines: Line[], line: Line, edge: "top" | "bottom"): Line | undefined {
  let best: Line | undefined;
  for (const other of lines) {
    if (other === line || (edge === "top" ? other.y > line.y : other.y < line.y)) continue;
    if (best === undefined || Math.abs(other.y - line.y) < Math.abs(best.y - line.y)) best = other;
  }
  return best;
}

function topLine(lines: Line[]): Line {
  return lines.reduce((a, b) => (b.y > a.y ? b : a));
}

function bottomLine(lines: Line[]): Line {
  return lines.reduce((a, b) => (b.y < a.y ? b : a));
}

function edgeKey(text: string): string {
  return text.toLowerCase().replace(/\d+/g, "#").replace(/\s+/g, " ").trim();
}

function medianSize(lines: Line[]): number {
  // Weighted by characters, so a few big headings do not move the body size.
  const chars = new Map<number, number>();
  let total = 0;
  for (const line of lines) {
    chars.set(line.size, (chars.get(line.size) ?? 0) + line.text.length);
    total += line.text.length;
  }
  let seen = 0;
  for (const [size, count] of [...chars.entries()].sort((a, b) => a[0] - b[0])) {
    seen += count;
    if (seen * 2 >= total) return size;
  }
  return 0;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  // The lower median: with two gaps, the smaller is the line spacing and the larger a break.
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

function clampInt(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(value)));
}
