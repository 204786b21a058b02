/**
 * turndown 7.2's element lists (its `blockElements`, `voidElements` and
 * `meaningfulWhenBlankElements`, which it does not export), for the walks that reproduce its
 * decisions on the light tree without running it: collapse-whitespace.ts (its whitespace
 * collapsing) and prose-walk.ts (its conversion of prose). One copy, so the two walks cannot
 * drift apart; a test compares them with the installed turndown's source.
 */

/** turndown's `blockElements`. */
export const TURNDOWN_BLOCK: ReadonlySet<string> = new Set(["ADDRESS", "ARTICLE", "ASIDE", "AUDIO", "BLOCKQUOTE", "BODY", "CANVAS", "CENTER", "DD", "DIR", "DIV", "DL", "DT", "FIELDSET", "FIGCAPTION", "FIGURE", "FOOTER", "FORM", "FRAMESET", "H1", "H2", "H3", "H4", "H5", "H6", "HEADER", "HGROUP", "HR", "HTML", "ISINDEX", "LI", "MAIN", "MENU", "NAV", "NOFRAMES", "NOSCRIPT", "OL", "OUTPUT", "P", "PRE", "SECTION", "TABLE", "TBODY", "TD", "TFOOT", "TH", "THEAD", "TR", "UL"]);

/** turndown's `voidElements`. */
export const TURNDOWN_VOID: ReadonlySet<string> = new Set(["AREA", "BASE", "BR", "COL", "COMMAND", "EMBED", "HR", "IMG", "INPUT", "KEYGEN", "LINK", "META", "PARAM", "SOURCE", "TRACK", "WBR"]);

/** turndown's `meaningfulWhenBlankElements`. */
export const TURNDOWN_MEANINGFUL_WHEN_BLANK: ReadonlySet<string> = new Set(["A", "TABLE", "THEAD", "TBODY", "TFOOT", "TH", "TD", "IFRAME", "SCRIPT", "AUDIO", "VIDEO"]);
