import { decodeBody } from "../../shared/content/decode";
import { MAIN_CONTENT_PRUNED, extractMainContent } from "../../shared/content/extract/main-content";
import { parseLightDocument } from "../../shared/content/light-dom";
import { plainText } from "./plain-text";

/**
 * webgate's main-content output as plain text, for the segment scoring of the extraction set:
 * the same decode, parse and extractor as /fetch with main_content true, the extracted element
 * (or, when the extractor keeps nothing, the whole page) rendered as text instead of Markdown.
 */
export function webgateMainContentText(bytes: Uint8Array, contentType?: string): string {
  const html = decodeBody(bytes, contentType).text;
  const doc = parseLightDocument(html, { pruned: MAIN_CONTENT_PRUNED });
  const { element } = extractMainContent(doc.body, { title: doc.title.replace(/\s+/g, " ").trim() });
  return plainText(element ?? parseLightDocument(html).body);
}
