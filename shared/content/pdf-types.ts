/**
 * The messages between pdf.ts (main thread) and pdf-worker.mjs (the worker thread running pdf.js).
 */
import type { PdfPageText } from "./pdf-layout";

export type { PdfPageText };

/** A job for the worker. `data` is transferred, not copied. */
export interface PdfJob {
  data: Uint8Array;
  maxPages: number;
  /** Directory of pdf.js's packed CMaps (ending in a separator), for CJK fonts; null when not shipped. */
  cMapDir: string | null;
}

export type PdfJobResult =
  | { ok: true; pageCount: number; metadataTitle: string; pages: PdfPageText[]; failedPages: number }
  | { ok: false; kind: "encrypted" | "invalid"; message: string };
