import type { LightElement } from "../light-dom";
import { isHidden } from "./class-signals";
import { countText, measure, textChars } from "./figures";
import { run } from "./run-state";
import { postOrder } from "./tree-walk";

/**
 * Packed tables (light-dom.ts: plain tables kept as arrays of cell texts) in the main-content
 * extraction: which tables the first walk keeps packed, and building one into the tree for a stage
 * that tells its parts apart, numbered and measured as the first walk would have.
 */

/** The most non-space characters of a cell that no scoring pass takes for a paragraph (see tryExtract). */
const UNSCORED_CELL_CHARS = 24;

/**
 * The first walk's look at a packed table (light-dom.ts): kept packed, and measured as a leaf,
 * when no walk before the cleaning could tell its parts apart: none is hidden (markFiltered) and
 * no cell has the text of a paragraph the scoring would credit. Else it is built into the tree
 * here, and the walk numbers its parts as any others. Never skips anything.
 */
export function settleTable(el: LightElement): false {
  const packed = el.firstChild === null ? el.packedTable : null;
  if (packed === null) return false;
  let leaf = !packed.partsWithAttributes(el).some(isHidden);
  for (let c = 0; leaf && c < packed.cellTexts.length; c++) {
    run.meter?.tick();
    const text = packed.cellTexts[c];
    if (text === null || text === undefined) continue;
    countText(text);
    leaf = textChars <= UNSCORED_CELL_CHARS;
  }
  if (!leaf) el.unpack(run.meter);
  return false;
}

/**
 * Builds a packed table kept by the first walk into the tree, for a stage that tells its parts
 * apart (the cleaning, the first words of a block, the lead's walk), with its parts numbered and
 * measured as the first walk would have. Nothing for any other element. Each table is built at
 * most once: linear.
 */
export function expandTable(el: LightElement): void {
  if (el.firstChild !== null || el.packedTable === null) return;
  el.unpack(run.meter);
  const figures = run.figures;
  if (figures === undefined) return;
  const { raw, work } = figures;
  postOrder(el, () => false, (part) => {
    if (part === el) return;
    raw.number(part);
    measure(part, raw);
  });
  work?.fit(raw.size);
}
