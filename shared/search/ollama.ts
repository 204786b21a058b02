/**
 * Ollama web search adapter: `POST <endpoint>/api/web_search` with JSON
 * `{ query, max_results }` and `Authorization: Bearer <key>`; results from `results[]`
 * (title, url, content → snippet).
 *
 * The API has no domain filter: with one, the most results it gives (10) are asked for and the
 * service filters them. Statuses follow the common mapping (401/403 auth, 429 rate limit, 5xx
 * retryable).
 */
import * as z from "../zod-mini";
import { once } from "../once";
import type { TrustedHttpClient } from "../http/types";
import { PROVIDER_LIMITS, type ProviderLimits, type RawResult, type SearchProvider } from "./provider";
import { parseJsonBody, sendProviderRequest, throwForStatus, wrongShapeError } from "./provider-http";

export interface OllamaProviderOptions {
  http: TrustedHttpClient;
  /** Base URL, e.g. `https://ollama.com`; `/api/web_search` is appended to its path. */
  endpoint: string;
  apiKey: string;
  limits?: ProviderLimits;
}

/** Ollama's documented maximum of `max_results`. */
const OLLAMA_MAX_RESULTS = 10;

// The answer's schemas are built on first use (shared/once.ts): a deployment uses one or two
// providers, and building every provider's at each cold start would cost it time for nothing.
const ollamaItem = once(() => z.object({
  title: z.nullish(z.string()),
  url: z.string(),
  content: z.nullish(z.string()),
}));

const ollamaAnswer = once(() => z.object({ results: z.nullable(z.array(z.unknown())) }));

/** `<endpoint>/api/web_search`, keeping a base path such as `https://proxy.example/ollama/`. */
export function ollamaSearchUrl(endpoint: string): URL {
  const url = new URL(endpoint);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/api/web_search`;
  url.search = "";
  url.hash = "";
  return url;
}

/** Creates the Ollama provider. Throws only provider_* WebgateErrors (see {@link SearchProvider}). */
export function createOllamaProvider(options: OllamaProviderOptions): SearchProvider {
  const limits = options.limits ?? PROVIDER_LIMITS;
  const url = ollamaSearchUrl(options.endpoint);
  return {
    name: "ollama",
    async search({ query, maxResults, filter, signal, timeoutMs }): Promise<RawResult[]> {
      const response = await sendProviderRequest(
        options.http,
        "ollama",
        {
          url,
          method: "POST",
          headers: {
            Accept: "application/json",
            "Accept-Encoding": "gzip",
            "Content-Type": "application/json",
            Authorization: `Bearer ${options.apiKey}`,
          },
          body: JSON.stringify({ query, max_results: filter === undefined ? maxResults : OLLAMA_MAX_RESULTS }),
        },
        limits,
        { signal, timeoutMs },
      );
      throwForStatus("ollama", response);
      const answer = ollamaAnswer().safeParse(parseJsonBody("ollama", response));
      if (!answer.success) throw wrongShapeError("ollama", "no results list", answer.error);
      const results: RawResult[] = [];
      for (const item of answer.data.results ?? []) {
        // One malformed entry costs that entry, not the whole answer.
        const parsed = ollamaItem().safeParse(item);
        if (!parsed.success) continue;
        const { title, url: link, content } = parsed.data;
        results.push({ title: title ?? "", url: link, snippet: content ?? "" });
      }
      return results;
    },
  };
}
