/**
 * /fetch: the guarded fetch, conversion and paging from a stored snapshot, without any
 * transport concerns. Everything it talks to comes in through {@link FetchServiceDeps}.
 */
import { createDeadline, type Deadline } from "../deadline";
import { WebgateError, isWebgateError } from "../errors";
import type { Clock } from "../clock";
import type { SnapshotCache } from "../cache/snapshot-cache";
import type { SnapshotManifest } from "../cache/page-store";
import type { SnapshotMeta } from "../snapshot/snapshot-meta";
import { cacheKeyFor } from "../cache/cache-key";
import { pageWindow, paginateWindow } from "../content/paginate";
import { parseContentType } from "../content/content-type";
import { parseMarkdownTokens } from "../content/origin-markdown";
import { isPdf, renderPdfDocument } from "../content/pdf";
import { inProcessConverter, type ConversionInput, type DocumentConverter } from "../content/converter";
import type { RenderedDocument } from "../content/render";
import { checkUrl, type CheckedUrl } from "../guard/url-policy";
import { findUrlSecret, type UrlSecretKind } from "../guard/url-secret";
import type { GuardPolicy } from "../guard/policy";
import type { GuardedClient } from "../guard/guarded-get";
import { withTruncationNote, type RenderedPage } from "../render/renderer";
import { botProtectionMessage, detectBotProtection } from "./bot-protection";
import type { FetchRequest, FetchResponse, RenderMode } from "./schema";

/**
 * Bumped whenever the conversion changes its output, so snapshots made by an older conversion
 * are never served as if made by the current one.
 */
export const CONVERSION_VERSION = "18";

export interface FetchObservation {
  cache: "hit" | "miss" | "bypass";
  finalHost: string;
  /** The URL-secret rule the requested URL matched (flag mode), for the log line. */
  urlSecret: UrlSecretKind | undefined;
  bytes: number;
  originMs: number | undefined;
  originBytes: number | undefined;
}

export interface FetchServiceDeps {
  guarded: GuardedClient;
  /**
   * Renders a URL the URL policy has normalized, in a browser held to the guard (`render`),
   * within `budgetMs` when given (what the request's deadline has left for it); `signal` is the
   * request's deadline, which stops the render when it passes.
   */
  render: (url: string, budgetMs: number | undefined, signal?: AbortSignal) => Promise<RenderedPage>;
  cache: SnapshotCache;
  clock: Clock;
  policy: GuardPolicy;
  /** The request's deadline (see shared/deadline.ts); the origin fetch, conversion and store write fit in it. */
  deadline?: Deadline;
  /** Where HTML and text are converted (converter.ts); default: in process. */
  converter?: DocumentConverter;
  /** `WEBGATE_URL_SECRET_CHECK`; absent: off. */
  urlSecretCheck?: "refuse" | "flag" | "off";
  /** robots.txt, checked before the page and each redirect hop are requested. */
  robots: { check(url: URL, signal?: AbortSignal): Promise<void> };
  /** The whole origin exchange (robots.txt, the page, reading a PDF) also fits in this. */
  timeoutMs: number;
  pdfMaxPages: number;
}

/**
 * Time kept after the origin fetch for the conversion, the store write and the answer: at most
 * this much, and at most a quarter of what is left, so a short deadline still leaves the origin
 * most of it.
 */
export const POST_FETCH_RESERVE_MS = 3_000;

/**
 * Time kept after the conversion for the store write and the answer: at most this much, and at
 * most a quarter of what is left. A conversion past what remains answers `content_too_complex`.
 */
export const POST_CONVERSION_RESERVE_MS = 1_000;

/** Converts a fetched or rendered body within the request's deadline (less the store write's reserve). */
async function convertWithin(input: ConversionInput, deps: FetchServiceDeps): Promise<RenderedDocument> {
  const converter = deps.converter ?? inProcessConverter;
  const { deadline } = deps;
  if (deadline === undefined) return converter.convert(input, undefined);
  const conversion = deadline.within({ reserveMs: Math.min(POST_CONVERSION_RESERVE_MS, deadline.remainingMs() / 4) });
  try {
    return await converter.convert(input, conversion);
  } finally {
    conversion.dispose();
  }
}

export async function fetchPage(request: FetchRequest, deps: FetchServiceDeps): Promise<{ body: FetchResponse; observation: FetchObservation }> {
  // The URL policy runs before the cache: a refused URL is refused even if a snapshot exists.
  const url = checkUrl(request.url, deps.policy);
  // Before the cache and before any request leaves: a prompt-injected agent could otherwise leak
  // a secret to the host it names.
  const urlSecret = deps.urlSecretCheck === undefined || deps.urlSecretCheck === "off" ? undefined : findUrlSecret(url);
  if (urlSecret !== undefined && deps.urlSecretCheck === "refuse") {
    throw new WebgateError(
      "url_looks_like_secret",
      "The URL's path or query holds what looks like a key or token (a known key prefix, a JWT, 40 or more hex digits, or a long random run); it was not fetched. Remove it and try again.",
      { logReason: urlSecret },
    );
  }
  // A snapshot belongs to its url, main_content and format (and the conversion that made it).
  // A rendered snapshot is its own snapshot too: `render` is part of the key ("never" keeps the
  // key plain fetches always had).
  const renderKey = request.render === "never" ? "" : `:render-${request.render}`;
  const urlKey = cacheKeyFor(url, `${request.main_content ? "main" : "full"}:${request.format}:v${CONVERSION_VERSION}${renderKey}`);
  const produce = () => produceSnapshot(url, request.main_content, request.format, request.render, deps);
  // Only the window around the page is read from the store (see pageWindow).
  const range = pageWindow(request.start, request.max_chars);

  let cache: FetchResponse["cache"];
  let manifest: SnapshotManifest;
  let slice: string;
  // The origin figures of this request's own fetch; none for a stored snapshot or a shared fill.
  let origin: Produced["origin"] | undefined;
  if (request.snapshot_id !== undefined) {
    const handle = await deps.cache.getById(urlKey, request.snapshot_id);
    manifest = handle.manifest;
    slice = await handle.read(range.start, range.end);
    cache = "hit";
  } else {
    const got = await deps.cache.getPage(urlKey, { maxAgeS: request.max_age, produce, start: range.start, end: range.end, deadline: deps.deadline });
    ({ cache, manifest, content: slice } = got);
    origin = got.produced?.origin;
  }

  const page = paginateWindow({ text: slice, offset: range.start, totalChars: manifest.totalChars }, request.start, request.max_chars);
  const { start, end } = page;
  const meta = manifest.meta;
  const now = deps.clock.now();
  const body: FetchResponse = {
    url: meta.url,
    final_url: meta.finalUrl,
    redirects: meta.redirects,
    status: meta.status,
    content_type: meta.contentType,
    charset: meta.charset,
    title: meta.title,
    extractor: meta.extractor,
    truncated: meta.truncated ?? false,
    origin_tokens: meta.originTokens ?? null,
    format: meta.format,
    total_chars: manifest.totalChars,
    start,
    end,
    next_start: page.nextStart,
    content: page.content,
    rendered: meta.rendered ?? false,
    snapshot: {
      id: manifest.id,
      sha256: manifest.sha256,
      fetched_at: new Date(manifest.fetchedAt).toISOString(),
      age_s: Math.max(0, Math.floor((now - manifest.fetchedAt) / 1000)),
    },
    cache,
    ...(urlSecret === undefined ? {} : { warnings: ["url_looks_like_secret"] }),
  };
  return {
    body,
    observation: {
      cache,
      urlSecret,
      finalHost: new URL(meta.finalUrl).host,
      bytes: Buffer.byteLength(page.content, "utf8"),
      originMs: origin?.ms,
      originBytes: origin?.bytes,
    },
  };
}

type Produced = { content: string; meta: SnapshotMeta; origin: { ms: number; bytes: number } };
type Format = FetchRequest["format"];

async function produceSnapshot(url: CheckedUrl, mainContent: boolean, format: Format, render: RenderMode, deps: FetchServiceDeps): Promise<Produced> {
  if (render === "always") return renderedSnapshot(url, mainContent, format, deps);
  try {
    return await plainSnapshot(url, mainContent, format, deps);
  } catch (error) {
    // "auto": the plain fetch found an application shell whose text scripts would write.
    if (render === "auto" && isJsRequired(error)) return renderedSnapshot(url, mainContent, format, deps);
    throw error;
  }
}

function isJsRequired(error: unknown): boolean {
  return isWebgateError(error) && error.code === "no_readable_content" && error.details.reason === "js_required";
}

function checkStatus(status: number): void {
  if (status < 200 || status > 299) {
    throw new WebgateError("upstream_status", `The origin answered with HTTP status ${status}.`, {
      // An origin's 5xx or 429 may pass; its 4xx will not.
      retryable: status >= 500 || status === 429,
      details: { upstream_status: status },
    });
  }
}

/** The page as the browser built it, through the same conversion as fetched HTML. */
async function renderedSnapshot(url: CheckedUrl, mainContent: boolean, format: Format, deps: FetchServiceDeps): Promise<Produced> {
  // The render gets what the request's deadline has left, less the same reserve a fetch keeps.
  const left = deps.deadline?.remainingMs();
  const page = await deps.render(url.href, left === undefined ? undefined : left - Math.min(POST_FETCH_RESERVE_MS, left / 4), deps.deadline?.signal);
  checkStatus(page.status);
  const converted = await convertWithin({ body: page.body, contentType: page.contentType, finalUrl: page.finalUrl, mainContent, format }, deps);
  // A DOM read before the page settled is cut short; the origin's own bytes (a JSON or text top
  // level the browser only displayed) are whole whatever the page did.
  const cut = page.rendered && page.truncated !== null && page.truncated !== undefined ? page.truncated : null;
  return {
    content: cut === null ? converted.content : withTruncationNote(converted.content, cut, format),
    meta: {
      url: url.href,
      finalUrl: page.finalUrl,
      redirects: page.redirects,
      status: page.status,
      contentType: converted.contentType,
      charset: converted.charset,
      title: converted.title,
      extractor: converted.extractor,
      truncated: cut !== null || converted.truncated === true,
      originTokens: null,
      format,
      rendered: page.rendered,
      renderTruncated: page.truncated,
    },
    origin: { ms: page.elapsedMs, bytes: page.proxyBytes },
  };
}

async function plainSnapshot(url: CheckedUrl, mainContent: boolean, format: Format, deps: FetchServiceDeps): Promise<Produced> {
  const { deadline } = deps;
  const started = performance.now();
  // Time left for the origin side: the fetch limit, and the request's deadline less the reserve
  // kept for the conversion, the store write and the answer.
  const remainingMs = () => {
    const own = deps.timeoutMs - (performance.now() - started);
    const request = deadline === undefined ? Number.POSITIVE_INFINITY : deadline.remainingMs() - Math.min(POST_FETCH_RESERVE_MS, deadline.remainingMs() / 4);
    return Math.max(1, Math.round(Math.min(own, request)));
  };
  // Inside the request's deadline, so on its time (the same budget as a deadline of its own).
  const origin = deadline === undefined ? createDeadline(remainingMs()) : deadline.within({ maxMs: remainingMs() });
  let response;
  try {
    // The URL as checked above: the guarded client does not check it a second time.
    response = await deps.guarded.get(url, {
      signal: origin.signal,
      // The URL and every redirect hop (another host's too) are checked against their host's
      // robots.txt before they are requested, after the guard accepted them.
      beforeRequest: (next) => deps.robots.check(next, deadline?.signal),
    });
  } finally {
    origin.dispose();
  }
  const blocked = detectBotProtection(response);
  if (blocked !== null) {
    throw new WebgateError("blocked_by_bot_protection", botProtectionMessage(blocked, response.status), {
      details: { upstream_status: response.status, ...(blocked.vendor === null ? {} : { vendor: blocked.vendor }) },
    });
  }
  checkStatus(response.status);
  const contentType = response.headers["content-type"];
  const rendered = isPdf(response.body, parseContentType(contentType).mediaType)
    ? await renderPdfDocument(response.body, { maxPages: deps.pdfMaxPages, timeoutMs: remainingMs(), format })
    : await convertWithin({ body: response.body, contentType, finalUrl: response.finalUrl, mainContent, format }, deps);
  return {
    content: rendered.content,
    meta: {
      url: response.url,
      finalUrl: response.finalUrl,
      redirects: response.redirects,
      status: response.status,
      contentType: rendered.contentType,
      charset: rendered.charset,
      title: rendered.title,
      extractor: rendered.extractor,
      truncated: rendered.truncated ?? false,
      originTokens: rendered.extractor === "origin-markdown" ? parseMarkdownTokens(response.headers["x-markdown-tokens"]) : null,
      format,
    },
    origin: { ms: response.elapsedMs, bytes: response.body.length },
  };
}
