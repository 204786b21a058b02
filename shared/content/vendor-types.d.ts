// Type declarations for the untyped CommonJS libraries the content pipeline uses.

declare module "whatwg-encoding" {
  /** WHATWG Encoding "get an encoding": a label to its canonical name, or null when unknown. */
  export function labelToName(label: string): string | null;
  /** Decodes with the named encoding; a BOM overrides it (and is stripped). */
  export function decode(bytes: Uint8Array, fallbackEncodingName: string): string;
  export function getBOMEncoding(bytes: Uint8Array): "UTF-8" | "UTF-16LE" | "UTF-16BE" | null;
  export function isSupported(name: string): boolean;
}

declare module "html-encoding-sniffer" {
  /**
   * The HTML standard's encoding sniffing: BOM, transport label, meta prescan (skipped with
   * `xml`), default. Returns a WHATWG encoding name (labels resolved by @exodus/bytes).
   */
  export default function htmlEncodingSniffer(
    bytes: Uint8Array,
    options?: { xml?: boolean; transportLayerEncodingLabel?: string; defaultEncoding?: string },
  ): string;
}

declare module "@joplin/turndown-plugin-gfm" {
  import type TurndownService from "turndown";
  export const gfm: TurndownService.Plugin;
  export const tables: TurndownService.Plugin;
  export const strikethrough: TurndownService.Plugin;
  export const taskListItems: TurndownService.Plugin;
  export const highlightedCodeBlock: TurndownService.Plugin;
}

// pdf.js's worker module ships without declarations; webgate only hands it to pdf.js as its
// in-thread "fake worker" (globalThis.pdfjsWorker).
declare module "pdfjs-dist/legacy/build/pdf.worker.mjs" {
  export const WorkerMessageHandler: unknown;
}
