/**
 * Stands in, inside the Lambda bundles only, for the module that infra/bundling.ts aliases away:
 * code that a dependency loads but that webgate never runs. Reaching it is a bug in that
 * reasoning, so it fails loudly instead of returning something plausible.
 *
 * - `@mixmark-io/domino`: turndown's HTML parser for string input. webgate always hands turndown
 *   a parsed tree (shared/content/light-dom.ts), never a string. (linkedom, whose CSS parser was
 *   stubbed here too, is no longer in the runtime: only the bench's Readability anchor uses it.)
 */
function notBundled(name: string): never {
  throw new Error(`${name} is not part of the Lambda bundle (infra/bundling.ts aliases it away as unused)`);
}

/** domino's entry point, as turndown calls it. */
export function createDocument(): never {
  return notBundled("@mixmark-io/domino");
}
