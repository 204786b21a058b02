import type { WorkMeter } from "../conversion-deadline";
import type { LightElement } from "../light-dom";
import type { FiguresTable } from "./figures";

/**
 * The state of the main-content extraction running now, which its walks and rules read where a
 * parameter through every call would do the same. Module state rather than a context argument:
 * the extraction is synchronous and never re-entered, so at most one runs at a time on a thread.
 * `extractMainContent` sets it at the start and clears it at the end, whatever happens.
 */
export const run: {
  /**
   * The meter of the conversion's deadline, for the checkpoints in the walks (postOrder and
   * markFiltered visit every element; the other loops are bounded by what those walks visited).
   */
  meter?: WorkMeter | undefined;
  /**
   * The figures tables of the extraction, for the packed tables built into trees in the middle of
   * it (see expandTable).
   */
  figures?: { raw: FiguresTable; work: FiguresTable | null } | undefined;
  /**
   * The packed tables the cleaning was about to build, each with whether all its parts stay in
   * any cleaning (partsStayInCleaning). Judged once per table, from its arrays, before it is built.
   */
  judgedTables?: Map<LightElement, boolean> | undefined;
} = {};
