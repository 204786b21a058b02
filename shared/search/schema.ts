/**
 * The /search request and response schema (pure core).
 *
 * The request is a strict object: an unknown field is refused rather than ignored, so a caller
 * that misspells `max_results` learns it instead of silently getting five results.
 */
import * as z from "../zod-mini";
import { PROVIDER_NAMES } from "./provider-names";

export { PROVIDER_NAMES, type ProviderName } from "./provider-names";

export const QUERY_MIN_CHARS = 2;
export const QUERY_MAX_CHARS = 400;
export const MAX_RESULTS_LIMIT = 10;
export const DEFAULT_MAX_RESULTS = 5;
/** Entries of `allowed_domains` or `blocked_domains`. */
export const MAX_FILTER_DOMAINS = 20;
export const DOMAIN_MAX_CHARS = 253;

// A bare DNS name: letters, digits and hyphens in dot-separated labels of 1–63 characters, no
// hyphen at a label's ends (RFC 1123 §2.1). An A-label (xn--…) is accepted; a scheme, port, path,
// wildcard or trailing dot is not. Case-insensitive and without lookarounds, so the OpenAPI
// document (and any JSON Schema validator) accepts "Example.com", which is lower-cased on input.
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const DOMAIN_PATTERN = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);

const domainSchema = z
  .string()
  .check(
    z.trim(),
    z.toLowerCase(),
    z.maxLength(DOMAIN_MAX_CHARS, `a domain must be at most ${DOMAIN_MAX_CHARS} characters`),
    z.regex(DOMAIN_PATTERN, "a domain must be a bare host name such as example.com (no scheme, port, path or wildcard)"),
  );

const domainList = (what: string) =>
  z.pipe(
    z.array(domainSchema).check(z.maxLength(MAX_FILTER_DOMAINS, `${what} must list at most ${MAX_FILTER_DOMAINS} domains`)),
    // An empty list is no filter (clients often send [] for "none"); duplicates are dropped.
    z.transform((domains: string[]) => (domains.length === 0 ? undefined : [...new Set(domains)])),
  );

/** `POST /search` body. `query` is trimmed before its length is checked. */
export const searchRequestSchema = z
  .strictObject({
    query: z
      .string()
      .check(
        z.trim(),
        z.minLength(QUERY_MIN_CHARS, `query must be at least ${QUERY_MIN_CHARS} characters`),
        z.maxLength(QUERY_MAX_CHARS, `query must be at most ${QUERY_MAX_CHARS} characters`),
      ),
    max_results: z._default(
      z
        .number()
        .check(
          z.int("max_results must be a whole number"),
          z.gte(1, "max_results must be at least 1"),
          z.lte(MAX_RESULTS_LIMIT, `max_results must be at most ${MAX_RESULTS_LIMIT}`),
        ),
      DEFAULT_MAX_RESULTS,
    ),
    provider: z.optional(z.enum(PROVIDER_NAMES)),
    allowed_domains: z.described(
      z.optional(domainList("allowed_domains")),
      "Only results from these hosts (example.com also matches its subdomains). At most 20; not with blocked_domains.",
    ),
    blocked_domains: z.described(
      z.optional(domainList("blocked_domains")),
      "Never results from these hosts (example.com also matches its subdomains). At most 20; not with allowed_domains.",
    ),
  })
  .check(
    z.superRefine((request, ctx) => {
      if (request.allowed_domains !== undefined && request.blocked_domains !== undefined) {
        ctx.addIssue({ code: "custom", path: ["blocked_domains"], message: "give allowed_domains or blocked_domains, not both" });
      }
    }),
  );

export type SearchRequest = z.output<typeof searchRequestSchema>;

/** One normalized result: plain text title and snippet, an http(s) URL, `age` when known. */
export const searchResultSchema = z.strictObject({
  title: z.described(z.string(), "Plain text, entities decoded, tags stripped."),
  url: z.described(z.string(), "An http(s) URL."),
  snippet: z.described(z.string().check(z.maxLength(500)), "Plain text, at most 500 characters."),
  age: z.described(z.optional(z.string()), "How old the page is, as the provider said it (when known)."),
});

export type SearchResult = z.infer<typeof searchResultSchema>;

/** The /search answer; `provider` names the provider that actually answered (after failover). */
export const searchResponseSchema = z.strictObject({
  query: z.string(),
  provider: z.described(z.enum(PROVIDER_NAMES), "The provider that answered (after any failover)."),
  results: z.array(searchResultSchema),
});

export type SearchResponse = z.infer<typeof searchResponseSchema>;
