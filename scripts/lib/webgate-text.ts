import { renderDocument } from "../../shared/content/render";
import { WebgateError } from "../../shared/errors";

/**
 * webgate's main-content output in plain text, for the segment scoring of the extraction set: the
 * /fetch pipeline (decode, main_content true, `format: "text"`) on the page's bytes, by default
 * without a Content-Type charset, exactly as the set's README says a server would send them.
 */
export function webgateMainContentText(bytes: Uint8Array, url = "https://eval.example/page.html", contentType?: string): string {
  try {
    return renderDocument({ body: bytes, contentType, finalUrl: url, mainContent: true, format: "text" }).content;
  } catch (error) {
    // 422 no_readable_content is an answer (nothing readable in either mode), scored as empty text;
    // anything else is a failure of the page.
    if (error instanceof WebgateError && error.code === "no_readable_content") return "";
    throw error;
  }
}
