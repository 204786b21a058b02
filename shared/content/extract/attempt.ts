import type { LightElement } from "../light-dom";

/** One attempt of the main-content extraction: what it chose and removed, and why. */

/** Why the extraction returned what it returned. */
export type ExtractReason =
  /** An article was found with the full boilerplate filters. */
  | "article"
  /** The article needed the relaxed filters (elements with furniture words kept while scoring). */
  | "article_relaxed"
  /** No article with enough text: the whole page, cleaned of boilerplate blocks. */
  | "page_cleaned"
  /** The page has no text that survives cleaning: the caller converts the whole page. */
  | "no_text";

export interface Attempt {
  nodes: LightElement[];
  removed: Set<LightElement>;
  chars: number;
  sentences: number;
  /** What the attempt skipped before scoring (hidden elements, and furniture unless relaxed): all it removes uncleaned. */
  skipped: ReadonlySet<LightElement>;
  /** The nodes' characters before cleaning (skipped elements aside). */
  uncleanedChars: number;
  /** The page's characters with what the attempt skipped left out, before cleaning. */
  pageChars: number;
  /** Candidate scores of the attempt's scoring pass (Readability's content score). */
  scores: Map<LightElement, number>;
  reason: ExtractReason;
}
