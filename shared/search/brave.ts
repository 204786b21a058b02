/**
 * Brave Search adapter: `GET <endpoint>?q=…&count=N` with `X-Subscription-Token`, results from
 * `web.results[]` (title, url, description, age).
 *
 * Domain filters go into the query as `site:` / `-site:` operators, within Brave's query limits
 * (400 characters, 50 words); with a filter, the most results Brave gives (20) are asked for,
 * since the service filters the answer again.
 *
 * Brave answers an invalid token with 422 `SUBSCRIPTION_TOKEN_INVALID` (not 401), and a rate
 * limit with 429 plus `X-RateLimit-Reset: <s until the per-second window resets>, <s until the
 * monthly one resets>`; both are mapped here before the common status mapping.
 */
import * as z from "../zod-mini";
import { once } from "../once";
import type { TrustedHttpClient } from "../http/types";
import { withSiteOperators } from "./domain-filter";
import { PROVIDER_LIMITS, type ProviderLimits, type RawResult, type SearchProvider } from "./provider";
import { authFailedError, parseJsonBody, rateLimitedError, sendProviderRequest, throwForStatus, wrongShapeError } from "./provider-http";

export interface BraveProviderOptions {
  http: TrustedHttpClient;
  /** Full URL of the web search endpoint, e.g. `https://api.search.brave.com/res/v1/web/search`. */
  endpoint: string;
  apiKey: string;
  limits?: ProviderLimits;
}

// The answer's schemas are built on first use (shared/once.ts): a deployment uses one or two
// providers, and building every provider's at each cold start would cost it time for nothing.
const braveItem = once(() => z.object({
  title: z.string(),
  url: z.string(),
  description: z.optional(z.string()),
  age: z.optional(z.string()),
}));

// `web` is absent when Brave found nothing: that is an empty answer, not a bad one.
const braveAnswer = once(() => z.object({
  web: z.optional(z.object({ results: z.array(z.unknown()) })),
}));

/** Brave's documented limits on `q` and `count`. */
export const BRAVE_QUERY_LIMITS = { maxChars: 400, maxWords: 50 } as const;
const BRAVE_MAX_COUNT = 20;

const braveError = once(() => z.object({ error: z.optional(z.object({ code: z.optional(z.string()) })) }));

function numberList(value: string | undefined): number[] {
  return (value ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => /^\d{1,10}$/.test(part))
    .map(Number);
}

/**
 * Seconds until Brave lets the key search again, from `X-RateLimit-Reset` (one value per
 * window, e.g. per second and per month): the latest reset among the windows whose
 * `X-RateLimit-Remaining` is 0, or the first window's when that cannot be told.
 */
export function braveResetSeconds(headers: Record<string, string>): number | undefined {
  const resets = numberList(headers["x-ratelimit-reset"]);
  const remaining = numberList(headers["x-ratelimit-remaining"]);
  const exhausted = resets.filter((_, index) => remaining[index] === 0);
  if (exhausted.length > 0) return Math.max(...exhausted);
  return resets[0];
}

function errorCode(body: Buffer): string | undefined {
  try {
    const parsed = braveError().safeParse(JSON.parse(body.toString("utf8")));
    return parsed.success ? parsed.data.error?.code : undefined;
  } catch {
    return undefined;
  }
}

/** Creates the Brave provider. Throws only provider_* WebgateErrors (see {@link SearchProvider}). */
export function createBraveProvider(options: BraveProviderOptions): SearchProvider {
  const limits = options.limits ?? PROVIDER_LIMITS;
  return {
    name: "brave",
    async search({ query, maxResults, filter, signal, timeoutMs }): Promise<RawResult[]> {
      const url = new URL(options.endpoint);
      url.searchParams.set("q", withSiteOperators(query, filter, BRAVE_QUERY_LIMITS));
      url.searchParams.set("count", String(filter === undefined ? maxResults : BRAVE_MAX_COUNT));
      const response = await sendProviderRequest(
        options.http,
        "brave",
        {
          url,
          method: "GET",
          headers: { Accept: "application/json", "Accept-Encoding": "gzip", "X-Subscription-Token": options.apiKey },
        },
        limits,
        { signal, timeoutMs },
      );
      if (response.status === 422 && errorCode(response.body) === "SUBSCRIPTION_TOKEN_INVALID") {
        throw authFailedError("brave", response.status);
      }
      if (response.status === 429) {
        const quota = errorCode(response.body) === "QUOTA_LIMITED";
        throw rateLimitedError("brave", response, braveResetSeconds(response.headers), quota ? "monthly quota" : "rate limit");
      }
      throwForStatus("brave", response);
      const answer = braveAnswer().safeParse(parseJsonBody("brave", response));
      if (!answer.success) throw wrongShapeError("brave", "no web.results list", answer.error);
      const results: RawResult[] = [];
      for (const item of answer.data.web?.results ?? []) {
        // One malformed entry costs that entry, not the whole answer.
        const parsed = braveItem().safeParse(item);
        if (!parsed.success) continue;
        const { title, url: link, description, age } = parsed.data;
        results.push({ title, url: link, snippet: description ?? "", ...(age === undefined ? {} : { age }) });
      }
      return results;
    },
  };
}
