import { LinearParser } from "./linear-parser";

/**
 * Why an HTML page yields no readable text (the `details.reason` of `no_readable_content`):
 * - `empty_body`: the document's body is empty: no element and no text in it (an empty or
 *   whitespace-only response, comments only, or `<html><head>…</head><body></body></html>`);
 * - `js_required`: the page is an application shell whose content scripts write (see
 *   {@link detectJsRequired});
 * - `no_text`: markup without any text a reader could use (only images, forms, media, comments…).
 */
export type UnreadableReason = "empty_body" | "no_text" | "js_required";

/** A page with more visible text than this is a page, not a shell waiting for its scripts. */
export const APP_SHELL_MAX_TEXT = 200;

/** `<noscript>` text that asks the reader to turn JavaScript on ("You need to enable JavaScript…"). */
const ASKS_FOR_JAVASCRIPT = /\bjavascript\b|\bjs\b/i;

/** Elements whose text a browser does not show as page text. */
const HIDDEN_TEXT = new Set(["script", "style", "noscript", "template", "title", "head"]);

/** What one parse of a page shows about how its content is produced. */
export interface ShellSignals {
  /** `<script>` elements (bundles by `src`, or inline code). */
  scripts: number;
  /** A `<noscript>` asks for JavaScript. */
  noscriptAsksForJs: boolean;
  /** An element with an `id` and nothing inside it (`<div id="root"></div>`, `<app-root id=…>`). */
  emptyMountPoint: boolean;
  /** Non-space characters of visible text (outside script, style, noscript, template, head). */
  visibleChars: number;
  /** Elements of the body, not counting scripts and other metadata elements. */
  bodyElements: number;
}

/** Elements that are not body content even where they stand in the body. */
const NOT_CONTENT = new Set(["html", "head", "body", "title", "meta", "link", "base", "style", "script", "noscript", "template"]);

/** One htmlparser2 pass collecting {@link ShellSignals}; linear in the input. */
export function readShellSignals(html: string): ShellSignals {
  const signals: ShellSignals = { scripts: 0, noscriptAsksForJs: false, emptyMountPoint: false, visibleChars: 0, bodyElements: 0 };
  let hiddenDepth = 0;
  let inNoscript = 0;
  let noscriptText = "";
  // Per open element: does it carry an id, and has anything been put inside it yet?
  const open: { id: boolean; filled: boolean }[] = [];
  const fill = () => {
    const top = open[open.length - 1];
    if (top !== undefined) top.filled = true;
  };
  const parser = new LinearParser(
    {
      onopentag(name, attribs) {
        fill();
        open.push({ id: attribs.id !== undefined && attribs.id.trim() !== "", filled: false });
        if (name === "script") signals.scripts++;
        if (hiddenDepth === 0 && !NOT_CONTENT.has(name)) signals.bodyElements++;
        if (name === "noscript") inNoscript++;
        if (HIDDEN_TEXT.has(name)) hiddenDepth++;
      },
      ontext(text) {
        if (inNoscript > 0) {
          if (noscriptText.length < 2_000) noscriptText += text;
          return;
        }
        if (hiddenDepth > 0) return;
        for (let i = 0; i < text.length; i++) {
          const c = text.charCodeAt(i);
          if (c > 0x20 && c !== 0xa0) {
            signals.visibleChars++;
            fill();
          }
        }
      },
      onclosetag(name) {
        const el = open.pop();
        if (el !== undefined && el.id && !el.filled && !HIDDEN_TEXT.has(name) && !VOID.has(name)) signals.emptyMountPoint = true;
        if (name === "noscript" && inNoscript > 0) inNoscript--;
        if (HIDDEN_TEXT.has(name) && hiddenDepth > 0) hiddenDepth--;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, recognizeSelfClosing: false },
  );
  parser.end(html);
  signals.noscriptAsksForJs = ASKS_FOR_JAVASCRIPT.test(noscriptText);
  return signals;
}

const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "param"]);

/**
 * Whether an HTML page is an application shell whose content is written by scripts: it shows
 * at most {@link APP_SHELL_MAX_TEXT} characters of text, and either a `<noscript>` asks for
 * JavaScript, or it loads scripts and has an empty mount element (or no visible text at all).
 * Exported for `render: "auto"` (issue 15), which renders exactly such pages in a browser.
 */
export function detectJsRequired(html: string): boolean {
  return isAppShell(readShellSignals(html));
}

function isAppShell(s: ShellSignals): boolean {
  if (s.visibleChars > APP_SHELL_MAX_TEXT) return false;
  return s.noscriptAsksForJs || (s.scripts > 0 && (s.emptyMountPoint || s.visibleChars === 0));
}

/**
 * The reason an HTML page whose conversion holds no readable text (in either main-content mode)
 * has none. A page without text that runs scripts is taken to be written by them.
 */
export function classifyUnreadableHtml(html: string): UnreadableReason {
  const signals = readShellSignals(html);
  if (isAppShell(signals) || signals.scripts > 0) return "js_required";
  return signals.bodyElements === 0 && signals.visibleChars === 0 ? "empty_body" : "no_text";
}
