/**
 * The /search request and response schema (pure core).
 *
 * The request is a strict object: an unknown field is refused rather than ignored, so a caller
 * that misspells `max_results` learns it instead of silently getting five results.
 */
import * as z from "zod";

/** The providers webgate speaks to, in the order "first configured" is taken. */
export const PROVIDER_NAMES = ["brave", "tavily", "searxng"] as const;

export type ProviderName = (typeof PROVIDER_NAMES)[number];

export const QUERY_MIN_CHARS = 2;
export const QUERY_MAX_CHARS = 400;
export const MAX_RESULTS_LIMIT = 10;
export const DEFAULT_MAX_RESULTS = 5;

/** `POST /search` body. `query` is trimmed before its length is checked. */
export const searchRequestSchema = z.strictObject({
  query: z
    .string()
    .trim()
    .min(QUERY_MIN_CHARS, `query must be at least ${QUERY_MIN_CHARS} characters`)
    .max(QUERY_MAX_CHARS, `query must be at most ${QUERY_MAX_CHARS} characters`),
  max_results: z
    .number()
    .int("max_results must be a whole number")
    .min(1, "max_results must be at least 1")
    .max(MAX_RESULTS_LIMIT, `max_results must be at most ${MAX_RESULTS_LIMIT}`)
    .default(DEFAULT_MAX_RESULTS),
  provider: z.enum(PROVIDER_NAMES).optional(),
});

export type SearchRequest = z.output<typeof searchRequestSchema>;

/** One normalized result: plain text title and snippet, an http(s) URL, `age` when known. */
export const searchResultSchema = z.strictObject({
  title: z.string().describe("Plain text, entities decoded, tags stripped."),
  url: z.string().describe("An http(s) URL."),
  snippet: z.string().max(500).describe("Plain text, at most 500 characters."),
  age: z.string().optional().describe("How old the page is, as the provider said it (when known)."),
});

export type SearchResult = z.infer<typeof searchResultSchema>;

/** The /search answer; `provider` names the provider that actually answered (after failover). */
export const searchResponseSchema = z.strictObject({
  query: z.string(),
  provider: z.enum(PROVIDER_NAMES).describe("The provider that answered (after any failover)."),
  results: z.array(searchResultSchema),
});

export type SearchResponse = z.infer<typeof searchResponseSchema>;
