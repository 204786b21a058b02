/**
 * Stands in, inside the Lambda bundles only, for the modules that infra/bundling.ts aliases away:
 * code that a dependency loads but that webgate never runs. Reaching it is a bug in that
 * reasoning, so it fails loudly instead of returning something plausible.
 *
 * - `@mixmark-io/domino`: turndown's HTML parser for string input. webgate always hands turndown
 *   a parsed tree (shared/content/html-to-markdown.ts), never a string.
 * - `cssomnom/parse`: linkedom's CSS parser behind `HTMLStyleElement.sheet`. webgate removes
 *   `<style>` before Readability runs, and neither webgate nor Readability reads `.sheet`.
 */
function notBundled(name: string): never {
  throw new Error(`${name} is not part of the Lambda bundle (infra/bundling.ts aliases it away as unused)`);
}

/** domino's entry point, as turndown calls it. */
export function createDocument(): never {
  return notBundled("@mixmark-io/domino");
}

/** cssomnom's parser, as linkedom's `<style>` element calls it. */
export function parse(): never {
  return notBundled("cssomnom/parse");
}
