/**
 * Stands in, inside the Lambda bundles only, for shared/content/render.ts where converter.ts
 * imports it (as `#render-document`, package.json "imports"; infra/bundling.ts aliases that name
 * here). The conversion pipeline is bundled on its own as render-document.mjs beside index.mjs
 * (render-document-entry.ts) and imported on the first conversion: its code (the extractor,
 * htmlparser2, turndown and their tables, ~160 KB minified) is then no part of a cold start that
 * a cache hit, a refusal, a robots.txt denial or a PDF serves, none of which converts HTML. The
 * first conversion of an instance pays for reading and compiling the file once, which the cold
 * start paid before.
 *
 * converter.ts calls `renderDocument` inside a promise, so this asynchronous stand-in returns the
 * same document and rejects with the same errors as the synchronous original: the side bundle's
 * WebgateErrors (another copy of the class) are rebuilt here with every field, so the route
 * answers them exactly as before. Should the file be missing, the conversion fails as a bug does
 * (500 `internal`); a test checks that every function asset that needs it has it. Tests and
 * `npm start` run unbundled, with render.ts itself.
 */
import { WebgateError } from "../../shared/errors";
import type { RenderedDocument, RenderInput } from "../../shared/content/render";
import type * as Entry from "./render-document-entry";

/** Resolved beside the running bundle; a request esbuild leaves external (FUNCTION_BUNDLING). */
const RENDER_DOCUMENT_FILE = "./render-document.mjs";

let pipeline: Promise<typeof Entry> | undefined;

/** `renderDocument` of shared/content/render.ts, run in the side bundle. */
export async function renderDocument(input: RenderInput): Promise<RenderedDocument> {
  // A failed import is not cached: the next conversion tries the file again.
  pipeline ??= (import(RENDER_DOCUMENT_FILE) as Promise<typeof Entry>).catch((error: unknown) => {
    pipeline = undefined;
    throw error;
  });
  const reply = (await pipeline).renderDocumentReply(input);
  if (reply.ok) return reply.document;
  const { code, message, details, retryable, headers, logReason, cause } = reply.error;
  throw new WebgateError(code, message, { details, retryable, headers, ...(logReason === undefined ? {} : { logReason }), ...(cause === undefined ? {} : { cause }) });
}
