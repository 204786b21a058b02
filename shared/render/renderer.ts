/**
 * The rendering contract between /fetch and whatever renders: the browser in this process
 * (`npm start`, tests, the render function) or the render function invoked from the fetch
 * function. Pure: types, the "no browser here" renderer, and the codec of the render function's
 * payload.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import * as z from "../zod-mini";
import { ERROR_TABLE, WebgateError, isWebgateError, type ErrorCode } from "../errors";
import { once } from "../once";
import { redirectHopSchema, type RedirectHop } from "../snapshot/snapshot-meta";

export interface RenderRequest {
  /** A URL the URL policy has already normalized (the renderer checks it again in its proxy). */
  url: string;
  /** Longest wait for the network to go idle after the document loaded (`WEBGATE_RENDER_WAIT_MS`). */
  waitMs: number;
  /** Longest time for the top-level document to load (the fetch time limit). */
  timeoutMs: number;
}

/**
 * Why a rendered DOM is what the page had so far rather than a settled page: the wait ran out
 * with requests still in flight, the page's byte or connection budget ran out, or the page kept
 * navigating.
 */
export const RENDER_TRUNCATIONS = ["render_wait", "render_bytes", "render_connections", "render_navigations"] as const;
export type RenderTruncation = (typeof RENDER_TRUNCATIONS)[number];

const TRUNCATION_NOTES: Record<RenderTruncation, string> = {
  render_wait: "the page had not settled when the render wait (WEBGATE_RENDER_WAIT_MS) ran out",
  render_bytes: "the page's requests reached its byte budget",
  render_connections: "the page opened as many connections as its budget allows",
  render_navigations: "the page kept navigating past the navigation limit",
};

/**
 * The note a truncated render's content ends with, in the form the PDF page cap uses (a
 * Markdown comment, or a bracketed line in plain text): what the browser had rendered is the
 * content, and the note says why that is all.
 */
export function renderTruncationNote(reason: RenderTruncation, format: "markdown" | "text"): string {
  const note = `${reason}: ${TRUNCATION_NOTES[reason]}; this is what it had rendered by then`;
  return format === "markdown" ? `<!-- truncated: ${note} -->` : `[truncated: ${note}]`;
}

/** `content` with the note as its last paragraph (trailing line breaks trimmed in one pass from the end). */
export function withTruncationNote(content: string, reason: RenderTruncation, format: "markdown" | "text"): string {
  let end = content.length;
  while (end > 0 && content.charCodeAt(end - 1) === 10) end -= 1;
  return `${content.slice(0, end)}\n\n${renderTruncationNote(reason, format)}\n`;
}

export interface RenderedPage {
  /** The requested URL. */
  url: string;
  /** The top-level document's URL when the DOM was read. */
  finalUrl: string;
  redirects: RedirectHop[];
  /** The top-level document's HTTP status. */
  status: number;
  /** `text/html; charset=utf-8` for a serialized DOM; the origin's type for anything else. */
  contentType: string;
  /** The serialized DOM (UTF-8), or the origin's bytes when the top level was not HTML. */
  body: Buffer;
  /** True when `body` is a DOM the browser built; false when it is the origin's bytes as served. */
  rendered: boolean;
  truncated: RenderTruncation | null;
  /** Bytes the page's requests moved through the guarded proxy, all requests together. */
  proxyBytes: number;
  elapsedMs: number;
}

/** How one render is run, beside what is rendered. */
export interface RenderOptions {
  /**
   * The request's deadline (shared/deadline.ts): when it aborts, the render stops (the browser
   * page is closed, the render function's invoke is abandoned) and answers `upstream_timeout`.
   */
  signal?: AbortSignal;
}

export interface Renderer {
  /**
   * @throws WebgateError `render_unavailable` (no browser), the guard's codes for a refused
   *   top-level navigation, `upstream_timeout` when nothing rendered in time or `options.signal`
   *   aborted, `connect_failed`, `upstream_too_large`, `too_many_redirects`.
   */
  render(request: RenderRequest, options?: RenderOptions): Promise<RenderedPage>;
}

/** The renderer of a process that has no browser: every render fails with `render_unavailable`. */
export function unavailableRenderer(message: string): Renderer {
  return {
    render: () => Promise.reject(new WebgateError("render_unavailable", message)),
  };
}

// The render function's payload. The DOM travels gzipped and base64-encoded: Lambda's response
// limit is 6 MB, and a 5 MB page written as a JSON string could exceed it. Built on first use:
// the fetch function decodes a payload only when it renders.
const renderPayloadSchemas = once(() => {
  const pageSchema = z.object({
    url: z.string(),
    finalUrl: z.string(),
    redirects: z.array(redirectHopSchema),
    status: z.number().check(z.int()),
    contentType: z.string(),
    bodyGzipBase64: z.string(),
    rendered: z.boolean(),
    truncated: z.nullable(z.enum(RENDER_TRUNCATIONS)),
    proxyBytes: z.number().check(z.int(), z.gte(0)),
    elapsedMs: z.number().check(z.gte(0)),
  });
  const errorSchema = z.object({
    code: z.string(),
    message: z.string(),
    retryable: z.boolean(),
    details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  });
  return {
    result: z.union([z.object({ ok: z.literal(true), page: pageSchema }), z.object({ ok: z.literal(false), error: errorSchema })]),
    request: z.strictObject({
      url: z.string().check(z.minLength(1), z.maxLength(10_000)),
      waitMs: z.number().check(z.int(), z.gte(0), z.lte(60_000)),
      timeoutMs: z.number().check(z.int(), z.gte(1), z.lte(120_000)),
    }),
  };
});

/** The render function's answer: `{ ok: true, page }` or `{ ok: false, error }`. */
export const renderResultSchema = (): ReturnType<typeof renderPayloadSchemas>["result"] => renderPayloadSchemas().result;
export type RenderResult = z.infer<ReturnType<typeof renderResultSchema>>;

/** What the render function is invoked with: a {@link RenderRequest}. */
export const renderRequestSchema = (): ReturnType<typeof renderPayloadSchemas>["request"] => renderPayloadSchemas().request;

/** A render outcome as the render function answers it. Unknown errors become `internal`. */
export function encodeRenderResult(outcome: { page: RenderedPage } | { error: unknown }): RenderResult {
  if ("page" in outcome) {
    const { body, ...rest } = outcome.page;
    return { ok: true, page: { ...rest, bodyGzipBase64: gzipSync(body).toString("base64") } };
  }
  const err = isWebgateError(outcome.error) ? outcome.error : new WebgateError("internal", "The render function failed.", { cause: outcome.error });
  return { ok: false, error: { code: err.code, message: err.message, retryable: err.retryable, details: err.details } };
}

/**
 * The render function's answer back as a page, or its error rethrown as the same WebgateError.
 * `maxBodyBytes` bounds the decompressed body (the gzip is the render function's, but it is
 * still bytes from a page).
 *
 * @throws WebgateError the render function's own error; `render_unavailable` for an answer that
 *   is not a render result or a body over `maxBodyBytes`.
 */
export function decodeRenderResult(payload: unknown, maxBodyBytes: number): RenderedPage {
  const parsed = renderResultSchema().safeParse(payload);
  if (!parsed.success) throw new WebgateError("render_unavailable", "The render function gave an answer that is not a render result.");
  const result = parsed.data;
  if (!result.ok) {
    const code = (result.error.code in ERROR_TABLE ? result.error.code : "internal") as ErrorCode;
    throw new WebgateError(code, result.error.message, { retryable: result.error.retryable, details: result.error.details });
  }
  const { bodyGzipBase64, ...rest } = result.page;
  let body: Buffer;
  try {
    body = gunzipSync(Buffer.from(bodyGzipBase64, "base64"), { maxOutputLength: maxBodyBytes });
  } catch (cause) {
    if ((cause as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new WebgateError("upstream_too_large", `The rendered page is larger than the limit of ${maxBodyBytes} bytes.`, {
        cause,
        details: { limit_bytes: maxBodyBytes },
      });
    }
    throw new WebgateError("render_unavailable", "The render function's page could not be decompressed.", { cause });
  }
  return { ...rest, body };
}
