/**
 * Tavily adapter: `POST <endpoint>` with JSON `{ query, max_results, search_depth: "basic" }`
 * and `Authorization: Bearer <key>`; results from `results[]` (title, url, content,
 * published_date when Tavily gives one). Domain filters go natively as `include_domains` /
 * `exclude_domains`.
 *
 * Tavily's own statuses beyond the common ones: 432 (plan or key usage limit) and 433
 * (pay-as-you-go limit) are quota refusals, mapped to provider_rate_limited like a 429.
 */
import * as z from "../zod-mini";
import { once } from "../once";
import type { TrustedHttpClient } from "../http/types";
import { PROVIDER_LIMITS, type ProviderLimits, type RawResult, type SearchProvider } from "./provider";
import { parseJsonBody, rateLimitedError, sendProviderRequest, throwForStatus, wrongShapeError } from "./provider-http";

export interface TavilyProviderOptions {
  http: TrustedHttpClient;
  /** Full URL of the search endpoint, e.g. `https://api.tavily.com/search`. */
  endpoint: string;
  apiKey: string;
  limits?: ProviderLimits;
}

// The answer's schemas are built on first use (shared/once.ts): a deployment uses one or two
// providers, and building every provider's at each cold start would cost it time for nothing.
const tavilyItem = once(() => z.object({
  title: z.string(),
  url: z.string(),
  content: z.nullish(z.string()),
  published_date: z.nullish(z.string()),
}));

const tavilyAnswer = once(() => z.object({ results: z.array(z.unknown()) }));

/** Creates the Tavily provider. Throws only provider_* WebgateErrors (see {@link SearchProvider}). */
export function createTavilyProvider(options: TavilyProviderOptions): SearchProvider {
  const limits = options.limits ?? PROVIDER_LIMITS;
  return {
    name: "tavily",
    async search({ query, maxResults, filter, signal, timeoutMs }): Promise<RawResult[]> {
      const body: Record<string, unknown> = { query, max_results: maxResults, search_depth: "basic" };
      if (filter?.allowed !== undefined) body.include_domains = filter.allowed;
      if (filter?.blocked !== undefined) body.exclude_domains = filter.blocked;
      const response = await sendProviderRequest(
        options.http,
        "tavily",
        {
          url: new URL(options.endpoint),
          method: "POST",
          headers: {
            Accept: "application/json",
            "Accept-Encoding": "gzip",
            "Content-Type": "application/json",
            Authorization: `Bearer ${options.apiKey}`,
          },
          body: JSON.stringify(body),
        },
        limits,
        { signal, timeoutMs },
      );
      if (response.status === 432 || response.status === 433) {
        throw rateLimitedError("tavily", response, undefined, "usage limit of the plan");
      }
      throwForStatus("tavily", response);
      const answer = tavilyAnswer().safeParse(parseJsonBody("tavily", response));
      if (!answer.success) throw wrongShapeError("tavily", "no results list", answer.error);
      const results: RawResult[] = [];
      for (const item of answer.data.results) {
        const parsed = tavilyItem().safeParse(item);
        if (!parsed.success) continue;
        const { title, url, content, published_date: published } = parsed.data;
        results.push({ title, url, snippet: content ?? "", ...(published ? { age: published } : {}) });
      }
      return results;
    },
  };
}
