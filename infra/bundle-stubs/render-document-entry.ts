/**
 * The entry of render-document.mjs, the side bundle that carries /fetch's conversion pipeline
 * (shared/content/render.ts: decoding, the HTML extractor, htmlparser2, turndown) for the
 * functions that read pages (infra/bundling.ts, RENDER_DOCUMENT_BUNDLE). Their own bundles reach
 * it through render-document-loader.ts on the first conversion.
 *
 * This bundle has its own copy of shared/errors.ts, so the function's `isWebgateError` would not
 * know its errors: a WebgateError leaves here as data, which the loader turns back into the
 * function's own class. Any other throw (a bug) passes through as it is, a 500 `internal` either way.
 */
import { isWebgateError, type ErrorCode, type ErrorDetails } from "../../shared/errors";
import { renderDocument, type RenderedDocument, type RenderInput } from "../../shared/content/render";

/** A WebgateError of this bundle, field by field. */
export interface RenderDocumentError {
  code: ErrorCode;
  message: string;
  details: ErrorDetails;
  retryable: boolean;
  headers: Record<string, string>;
  logReason: string | undefined;
  cause: unknown;
}

export type RenderDocumentReply = { ok: true; document: RenderedDocument } | { ok: false; error: RenderDocumentError };

/** {@link renderDocument}, with its WebgateError returned as data instead of thrown. */
export function renderDocumentReply(input: RenderInput): RenderDocumentReply {
  try {
    return { ok: true, document: renderDocument(input) };
  } catch (error) {
    if (!isWebgateError(error)) throw error;
    const { code, message, details, retryable, headers, logReason, cause } = error;
    return { ok: false, error: { code, message, details, retryable, headers, logReason, cause } };
  }
}
