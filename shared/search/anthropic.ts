/**
 * Anthropic adapter: Claude's server-side web search through the Messages API.
 *
 * `POST <endpoint>/v1/messages` with `x-api-key` and `anthropic-version: 2023-06-01`: one user
 * message asking for one search, and the tool
 * `{ type: "web_search_20250305", name: "web_search", max_uses: 1 }` with `allowed_domains` /
 * `blocked_domains` when the request has a filter. The answer's content blocks are:
 * - `server_tool_use` (the search Claude ran),
 * - `web_search_tool_result`: `content` is a list of `web_search_result` (`url`, `title`,
 *   `page_age`, `encrypted_content`), or a `web_search_tool_result_error` with an `error_code`,
 * - `text`, whose `citations` (`web_search_result_location`) quote the pages (`cited_text`).
 *
 * A result's `encrypted_content` is opaque (only Claude can read it), so a result's snippet is
 * the text Claude's answer cited from that URL, or empty when it cited nothing there. Results
 * come only from the tool result blocks the API itself wrote, never from Claude's prose, so a
 * query that talks the model into saying something cannot add or change a result.
 *
 * `stop_reason: "pause_turn"` (the API paused a long turn) is continued once by sending the
 * conversation back. `usage.server_tool_use.web_search_requests` is the number of searches
 * billed; it is reported through `onBilledSearches` as soon as each answer is read, so a
 * search billed before a later failure is still counted.
 */
import * as z from "../zod-mini";
import { once } from "../once";
import { WebgateError } from "../errors";
import type { HttpResponse, TrustedHttpClient } from "../http/types";
import { PROVIDER_LIMITS, type ProviderLimits, type RawResult, type SearchCall, type SearchProvider } from "./provider";
import { exchangeTimeoutMs, parseJsonBody, rateLimitedError, sendProviderRequest, throwForStatus, wrongShapeError } from "./provider-http";

export interface AnthropicProviderOptions {
  http: TrustedHttpClient;
  /** Base URL, e.g. `https://api.anthropic.com`; `/v1/messages` is appended to its path. */
  endpoint: string;
  apiKey: string;
  /** The model that runs the search, e.g. `claude-haiku-4-5`. */
  model: string;
  limits?: ProviderLimits;
}

export const ANTHROPIC_VERSION = "2023-06-01";
export const WEB_SEARCH_TOOL_TYPE = "web_search_20250305";
/** Enough for a short answer citing each result; bounds the output tokens billed. */
export const ANTHROPIC_MAX_TOKENS = 1_024;
/** Distinct cited passages joined into one snippet (normalization cuts it to 500 characters). */
const SNIPPET_JOIN = " … ";

// The answer's schemas are built on first use (shared/once.ts): a deployment uses one or two
// providers, and building every provider's at each cold start would cost it time for nothing.
const searchResultItem = once(() => z.object({
  type: z.literal("web_search_result"),
  url: z.string(),
  title: z.nullish(z.string()),
  page_age: z.nullish(z.string()),
}));

const toolResultBlock = once(() => z.object({
  type: z.literal("web_search_tool_result"),
  content: z.union([
    z.array(z.unknown()),
    z.object({ type: z.literal("web_search_tool_result_error"), error_code: z.string() }),
  ]),
}));

const citation = once(() => z.object({ type: z.literal("web_search_result_location"), url: z.string(), cited_text: z.nullish(z.string()) }));

const textBlock = once(() => z.object({ type: z.literal("text"), citations: z.nullish(z.array(z.unknown())) }));

const messageAnswer = once(() => z.object({
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.nullish(z.string()),
  usage: z.nullish(z.object({ server_tool_use: z.nullish(z.object({ web_search_requests: z.nullish(z.number().check(z.int(), z.nonnegative())) })) })),
}));

type ContentBlock = z.infer<ReturnType<typeof messageAnswer>>["content"][number];

const errorBody = once(() => z.object({ error: z.object({ type: z.string() }) }));

/** `<endpoint>/v1/messages`, keeping a base path such as `https://proxy.example/anthropic/`. */
export function anthropicMessagesUrl(endpoint: string): URL {
  const url = new URL(endpoint);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/messages`;
  url.search = "";
  url.hash = "";
  return url;
}

/** The user message. The query travels as a JSON string so that quotes in it stay inside it. */
export function searchPrompt(query: string): string {
  return [
    "Run exactly one web search with the web_search tool for the query below; do not answer from memory.",
    "Then reply with one short sentence per result, quoting the page it comes from.",
    `Query: ${JSON.stringify(query)}`,
  ].join("\n");
}

/** The Messages API request body for one search (and for its one `pause_turn` continuation). */
export function messagesRequestBody(model: string, call: Pick<SearchCall, "query" | "filter">, assistantContent?: unknown[]): Record<string, unknown> {
  const tool: Record<string, unknown> = { type: WEB_SEARCH_TOOL_TYPE, name: "web_search", max_uses: 1 };
  if (call.filter?.allowed !== undefined) tool.allowed_domains = call.filter.allowed;
  if (call.filter?.blocked !== undefined) tool.blocked_domains = call.filter.blocked;
  const messages: unknown[] = [{ role: "user", content: searchPrompt(call.query) }];
  if (assistantContent !== undefined) messages.push({ role: "assistant", content: assistantContent });
  return { model, max_tokens: ANTHROPIC_MAX_TOKENS, messages, tools: [tool] };
}

/** A provider-chosen code made safe to echo: lower-case letters and underscores, bounded. */
function safeCode(raw: string): string {
  return raw.replace(/[^a-z0-9_]/gi, "").slice(0, 40) || "unknown";
}

function errorType(response: HttpResponse): string | undefined {
  try {
    const parsed = errorBody().safeParse(JSON.parse(response.body.toString("utf8")));
    return parsed.success ? safeCode(parsed.data.error.type) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Maps the API's HTTP errors: 429 → rate limited (Retry-After passed on), 529 (overloaded) →
 * rate limited, 400/404/413 → provider_error naming the API's error type (not retryable: the
 * same request fails again; a 404 is a wrong model or endpoint), the rest by the common mapping.
 */
function throwForAnthropicStatus(response: HttpResponse): void {
  const { status } = response;
  if (status >= 200 && status < 300) return;
  if (status === 529) throw rateLimitedError("anthropic", response, undefined, "capacity limit (HTTP 529, overloaded)");
  if (status === 400 || status === 404 || status === 413) {
    const type = errorType(response) ?? "no error type";
    const hint = status === 404 ? ": check WEBGATE_ANTHROPIC_MODEL and WEBGATE_ANTHROPIC_ENDPOINT" : "";
    throw new WebgateError("provider_error", `Anthropic refused the request with HTTP ${status} (${type})${hint}.`, {
      retryable: false,
      details: { provider: "anthropic", upstream_status: status },
    });
  }
  throwForStatus("anthropic", response);
}

/** Maps a `web_search_tool_result_error` code to the project's codes. */
export function toolErrorToWebgateError(code: string): WebgateError {
  const shown = safeCode(code);
  const details = { provider: "anthropic", provider_error_code: shown };
  switch (code) {
    case "too_many_requests":
      return new WebgateError("provider_rate_limited", "Anthropic's web search refused the search: rate limit reached (too_many_requests).", { details });
    case "query_too_long":
      return new WebgateError("invalid_request", "The query is too long for Anthropic's web search (query_too_long); shorten it.", {
        details: { ...details, field: "query" },
      });
    case "unavailable":
      return new WebgateError("provider_error", "Anthropic's web search is unavailable right now (unavailable).", { retryable: true, details });
    case "max_uses_exceeded":
      return new WebgateError("provider_error", "Anthropic's web search refused the search: max_uses_exceeded.", { retryable: false, details });
    default:
      return new WebgateError("provider_error", `Anthropic's web search failed (${shown}).`, { retryable: false, details });
  }
}

/** What one or more Messages API answers hold for /search (pure). */
export interface ExtractedSearch {
  /** Results of the tool result blocks; undefined when no block carried a result list. */
  results: RawResult[] | undefined;
  /** The first `web_search_tool_result_error` code, if any. */
  errorCode: string | undefined;
}

/**
 * Reads the results out of the content blocks (pure): every `web_search_result` of every
 * `web_search_tool_result` in order, with `page_age` as `age` and, as the snippet, the distinct
 * `cited_text`s of the citations pointing at that URL.
 */
export function extractSearch(blocks: readonly ContentBlock[]): ExtractedSearch {
  const cited = new Map<string, string[]>();
  for (const block of blocks) {
    const text = textBlock().safeParse(block);
    if (!text.success) continue;
    for (const raw of text.data.citations ?? []) {
      const parsed = citation().safeParse(raw);
      if (!parsed.success || !parsed.data.cited_text) continue;
      const quotes = cited.get(parsed.data.url) ?? [];
      if (!quotes.includes(parsed.data.cited_text)) quotes.push(parsed.data.cited_text);
      cited.set(parsed.data.url, quotes);
    }
  }
  let results: RawResult[] | undefined;
  let errorCode: string | undefined;
  for (const block of blocks) {
    const parsed = toolResultBlock().safeParse(block);
    if (!parsed.success) continue;
    const { content } = parsed.data;
    if (!Array.isArray(content)) {
      errorCode ??= content.error_code;
      continue;
    }
    results ??= [];
    for (const item of content) {
      const result = searchResultItem().safeParse(item);
      if (!result.success) continue;
      const { url, title, page_age: age } = result.data;
      results.push({ title: title ?? "", url, snippet: (cited.get(url) ?? []).join(SNIPPET_JOIN), ...(age ? { age } : {}) });
    }
  }
  return { results, errorCode };
}

/** Creates the Anthropic provider. Throws the codes of {@link SearchProvider}. */
export function createAnthropicProvider(options: AnthropicProviderOptions): SearchProvider {
  const limits = options.limits ?? PROVIDER_LIMITS;
  const url = anthropicMessagesUrl(options.endpoint);
  const headers = {
    Accept: "application/json",
    "Accept-Encoding": "gzip",
    "Content-Type": "application/json",
    "x-api-key": options.apiKey,
    "anthropic-version": ANTHROPIC_VERSION,
  };

  return {
    name: "anthropic",
    async search(call): Promise<RawResult[]> {
      // One time budget for the whole attempt, continuation included.
      const attemptMs = exchangeTimeoutMs(limits, call.timeoutMs);
      const attempt = AbortSignal.timeout(attemptMs);
      const signal = call.signal === undefined ? attempt : AbortSignal.any([call.signal, attempt]);
      const exchange = async (assistantContent?: unknown[]) => {
        const response = await sendProviderRequest(
          options.http,
          "anthropic",
          { url, method: "POST", headers, body: JSON.stringify(messagesRequestBody(options.model, call, assistantContent)) },
          limits,
          { signal, timeoutMs: attemptMs },
        );
        throwForAnthropicStatus(response);
        const answer = messageAnswer().safeParse(parseJsonBody("anthropic", response));
        if (!answer.success) throw wrongShapeError("anthropic", "not a Messages API answer with a content list", answer.error);
        const billed = answer.data.usage?.server_tool_use?.web_search_requests ?? 0;
        if (billed > 0) call.onBilledSearches?.(billed);
        return answer.data;
      };

      const first = await exchange();
      let blocks = first.content;
      let stopReason = first.stop_reason;
      if (stopReason === "pause_turn") {
        // The API paused a long turn: send the conversation back once so it can finish.
        const next = await exchange(first.content);
        blocks = [...first.content, ...next.content];
        stopReason = next.stop_reason;
      }
      const { results, errorCode } = extractSearch(blocks);
      if (results !== undefined) return results;
      if (errorCode !== undefined) throw toolErrorToWebgateError(errorCode);
      throw new WebgateError(
        "provider_bad_response",
        `Anthropic answered without searching the web (stop_reason ${safeCode(stopReason ?? "none")}); no search results to return.`,
        { details: { provider: "anthropic" } },
      );
    },
  };
}
