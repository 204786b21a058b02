/**
 * SearXNG adapter: `GET <SEARXNG_URL>/search?q=…&format=json`; results from `results[]` (title,
 * url, content, publishedDate). No key. Domain filters go into the query as `site:` / `-site:`
 * operators (passed on to the engines; the service filters the answer again).
 *
 * SearXNG answers `format=json` with 403 and an HTML page when `json` is missing from
 * `search.formats` in settings.yml (it is off by default), so a 403 or a non-JSON answer is
 * reported as provider_bad_response telling the operator to turn the format on.
 */
import * as z from "../zod-mini";
import { once } from "../once";
import { WebgateError } from "../errors";
import type { TrustedHttpClient } from "../http/types";
import { withSiteOperators } from "./domain-filter";
import { PROVIDER_LIMITS, type ProviderLimits, type RawResult, type SearchProvider } from "./provider";
import { parseJsonBody, sendProviderRequest, throwForStatus, wrongShapeError } from "./provider-http";

export interface SearxngProviderOptions {
  http: TrustedHttpClient;
  /** The instance's base URL (validated at start-up by `validateSearxngUrl`). */
  baseUrl: URL;
  limits?: ProviderLimits;
}

const JSON_FORMAT_HINT = " Turn on the json format in the SearXNG settings.yml (search.formats: [html, json]) and restart SearXNG.";

// The answer's schemas are built on first use (shared/once.ts): a deployment uses one or two
// providers, and building every provider's at each cold start would cost it time for nothing.
const searxngItem = once(() => z.object({
  title: z.string(),
  url: z.string(),
  content: z.nullish(z.string()),
  publishedDate: z.nullish(z.string()),
}));

const searxngAnswer = once(() => z.object({ results: z.array(z.unknown()) }));

/** SearXNG has no query limit of its own; these keep the operators within what engines take. */
export const SEARXNG_QUERY_LIMITS = { maxChars: 1_000, maxWords: 100 } as const;

/** `<base>/search`, keeping a base path such as `https://host/searxng/`. */
export function searxngSearchUrl(baseUrl: URL, query: string): URL {
  const url = new URL(baseUrl.href);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/search`;
  url.search = "";
  url.hash = "";
  url.searchParams.set("q", query);
  url.searchParams.set("format", "json");
  return url;
}

/** Creates the SearXNG provider. Throws only provider_* WebgateErrors (see {@link SearchProvider}). */
export function createSearxngProvider(options: SearxngProviderOptions): SearchProvider {
  const limits = options.limits ?? PROVIDER_LIMITS;
  return {
    name: "searxng",
    async search({ query, maxResults, filter, signal, timeoutMs }): Promise<RawResult[]> {
      const response = await sendProviderRequest(
        options.http,
        "searxng",
        { url: searxngSearchUrl(options.baseUrl, withSiteOperators(query, filter, SEARXNG_QUERY_LIMITS)), method: "GET", headers: { Accept: "application/json", "Accept-Encoding": "gzip" } },
        limits,
        { signal, timeoutMs },
      );
      if (response.status === 403) {
        throw new WebgateError("provider_bad_response", `SearXNG refused format=json (HTTP 403).${JSON_FORMAT_HINT}`, {
          details: { provider: "searxng", upstream_status: 403 },
        });
      }
      if (response.status === 401) {
        // SearXNG itself has no keys: a 401 comes from a proxy in front of it.
        throw new WebgateError("provider_auth_failed", "SearXNG refused the request (HTTP 401): the instance sits behind authentication that webgate does not send; check SEARXNG_URL.", {
          details: { provider: "searxng", upstream_status: 401 },
        });
      }
      throwForStatus("searxng", response);
      const answer = searxngAnswer().safeParse(parseJsonBody("searxng", response, JSON_FORMAT_HINT));
      if (!answer.success) throw wrongShapeError("searxng", "no results list", answer.error);
      const results: RawResult[] = [];
      for (const item of answer.data.results) {
        const parsed = searxngItem().safeParse(item);
        if (!parsed.success) continue;
        const { title, url, content, publishedDate } = parsed.data;
        results.push({ title, url, snippet: content ?? "", ...(publishedDate ? { age: publishedDate } : {}) });
        // SearXNG has no count parameter; stop reading once enough candidates are in hand
        // (normalization may drop some, so keep a margin).
        if (results.length >= maxResults * (filter === undefined ? 3 : 6)) break;
      }
      return results;
    },
  };
}
