/**
 * Markdown that a site serves itself (`Content-Type: text/markdown`, e.g. Cloudflare's "Markdown
 * for Agents" answering webgate's `Accept: text/markdown`). Pure.
 *
 * The label is not trusted: a body labelled Markdown that is in fact an HTML document is
 * converted as HTML by the caller ({@link looksLikeHtmlDocument}).
 */

/**
 * True when a "Markdown" body is an HTML document: after optional whitespace it opens with a
 * doctype, `<html`, `<head` or `<body`, or it has both an `<html` and a `<body` tag in its first
 * 4 KiB. Markdown may contain inline HTML, so a few tags alone do not count.
 */
export function looksLikeHtmlDocument(text: string): boolean {
  const head = text.slice(0, 4096).replace(/^\uFEFF/, "").trimStart().toLowerCase();
  if (/^<(!doctype\s+html|html|head|body)[\s>]/.test(head)) return true;
  return /<html[\s>]/.test(head) && /<body[\s>]/.test(head);
}

/**
 * The title of a Markdown document: a `title:` in YAML front matter, else the first ATX heading
 * (`# Title`, any level), else the first setext heading (`Title` underlined with `=` or `-`),
 * else "". Inline emphasis and link syntax are taken off.
 */
export function markdownTitle(markdown: string): string {
  const text = markdown.replace(/^\uFEFF/, "");
  const front = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text);
  let body = text;
  if (front !== null) {
    const title = /^title:[ \t]*(.+?)[ \t]*$/m.exec(front[1]!);
    if (title !== null) return clean(title[1]!.replace(/^(["'])(.*)\1$/, "$2"));
    body = text.slice(front[0].length);
  }
  const lines = body.split(/\r?\n/);
  let fence: string | null = null;
  for (let i = 0; i < lines.length && i < 2000; i++) {
    const line = lines[i]!;
    const fenceMark = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMark !== null) {
      if (fence === null) fence = fenceMark[1]!.charAt(0);
      else if (fenceMark[1]!.charAt(0) === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const atx = /^ {0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/.exec(line);
    if (atx !== null) return clean(atx[1]!);
    const next = lines[i + 1];
    if (line.trim() !== "" && next !== undefined && /^ {0,3}(=+|-{2,})[ \t]*$/.test(next) && !/^ {0,3}[-*+>]/.test(line)) return clean(line);
  }
  return "";
}

function clean(title: string): string {
  return title
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    // Emphasis and code spans only where they pair up; `_` only outside words (CommonMark), so
    // snake_case names keep their underscores.
    .replace(/(\*\*|\*|`)(\S(?:.*?\S)?)\1/g, "$2")
    .replace(/(^|[^\p{L}\p{N}_])(__|_)(\S(?:.*?\S)?)\2(?![\p{L}\p{N}_])/gu, "$1$3")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 300);
}

/** `x-markdown-tokens` as a whole number, or null when absent or not one. */
export function parseMarkdownTokens(header: string | undefined): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  return /^\d{1,12}$/.test(value) ? Number(value) : null;
}
