/**
 * Markdown → plain text, for `format: "text"` on Markdown a site served itself. Pure, line by
 * line, linear in the input. It removes the syntax and keeps the words, the way the HTML path's
 * text format writes a page: headings and list items as lines of their own, link text without
 * its target, no images, code as its text, paragraphs separated by a blank line.
 */

/**
 * Inline syntax of one line: images dropped, links to their text, emphasis and code marks off.
 * Every span is bounded (500 characters), so a hostile line of unmatched brackets or asterisks
 * costs linear time, not quadratic.
 */
function inlineText(line: string): string {
  // Backslash-escaped punctuation is hidden first (as private-use characters) so no rule below
  // takes it for syntax, then restored as the plain character.
  const hidden = line.replace(/\\([!-/:-@[-`{-~])/g, (_m, ch: string) => String.fromCharCode(0xe000 + ch.charCodeAt(0)));
  return (
    hidden
      // Images (inline and reference) carry no text an agent reads.
      .replace(/!\[[^\]]{0,500}\]\([^)]{0,500}\)/g, "")
      .replace(/!\[[^\]]{0,500}\]\[[^\]]{0,500}\]/g, "")
      // Links: inline, reference and autolinks keep their text.
      .replace(/\[([^\]]{0,500})\]\([^)]{0,500}\)/g, "$1")
      .replace(/\[([^\]]{0,500})\]\[[^\]]{0,500}\]/g, "$1")
      .replace(/<((?:https?|mailto):[^>\s]+)>/g, "$1")
      // Emphasis and code spans where they pair up; `_` only outside words (CommonMark).
      .replace(/(`{1,3})(.{1,500}?)\1/g, "$2")
      .replace(/(\*\*\*|\*\*|\*|~~)(\S(?:.{0,500}?\S)?)\1/g, "$2")
      .replace(/(^|[^\p{L}\p{N}_])(___|__|_)(\S(?:.{0,500}?\S)?)\2(?![\p{L}\p{N}_])/gu, "$1$3")
      // Inline HTML tags (the text between them stays).
      .replace(/<\/?[A-Za-z][A-Za-z0-9-]{0,50}(?:\s[^<>]{0,500})?\/?>/g, "")
      .replace(/[\ue000-\ue07f]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) - 0xe000))
  );
}

export function markdownToText(markdown: string): string {
  const lines = markdown.replace(/^\uFEFF/, "").split(/\r?\n/);
  const out: string[] = [];
  let fence: string | null = null;
  let i = 0;
  // YAML front matter is metadata, not text.
  if (lines[0] !== undefined && /^---[ \t]*$/.test(lines[0])) {
    const close = lines.findIndex((l, n) => n > 0 && /^(---|\.\.\.)[ \t]*$/.test(l));
    if (close > 0) i = close + 1;
  }
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const fenceMark = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMark !== null && (fence === null || fenceMark[1]!.charAt(0) === fence.charAt(0))) {
      fence = fence === null ? fenceMark[1]! : null;
      continue;
    }
    if (fence !== null) {
      out.push(line);
      continue;
    }
    // Setext underlines and thematic breaks.
    if (/^ {0,3}(=+|-+|(\* *){3,}|(_ *){3,})[ \t]*$/.test(line)) {
      if (/^ {0,3}=+[ \t]*$/.test(line) || (/^ {0,3}-+[ \t]*$/.test(line) && (out.at(-1) ?? "") !== "")) continue;
      out.push("");
      continue;
    }
    // Link reference definitions hold only targets.
    if (/^ {0,3}\[[^\]]+\]:\s*\S/.test(line)) continue;
    // Table delimiter rows; table rows become their cells, separated by spaces.
    if (/^ *\|? *:?-+:? *(\| *:?-+:? *)*\|? *$/.test(line) && line.includes("|")) continue;
    let text = line
      .replace(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$/, "$1")
      .replace(/^ {0,3}(>[ \t]?)+/, "")
      .replace(/^[ \t]*([-*+]|\d{1,9}[.)])[ \t]+(\[[ xX]\][ \t]+)?/, "");
    if (/^ *\|.*\| *$/.test(text)) text = text.trim().slice(1, -1).split("|").map((c) => c.trim()).join(" ");
    out.push(inlineText(text).trimEnd());
  }
  // Runs of blank lines become one; the text ends with one newline.
  const text = out.join("\n").replace(/\n{3,}/g, "\n\n").trim();
  return text === "" ? "" : `${text}\n`;
}
