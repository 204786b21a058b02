/**
 * Per-request domain filters (pure core): which result hosts a filter lets through, and the
 * `site:` / `-site:` operators for providers whose only native filter is the query itself.
 *
 * A filter entry `example.com` matches the host `example.com` and every subdomain
 * (`docs.example.com`), never a host that merely ends with the same characters
 * (`badexample.com`). Whatever a provider did with the filter, {@link passesDomainFilter} is
 * applied again to every normalized result, so no answer ever breaks it.
 */
import type { SearchRequest } from "./schema";

/** At most one of the two lists is set (the request schema refuses both). */
export interface DomainFilter {
  allowed?: readonly string[];
  blocked?: readonly string[];
}

/** The request's filter, or undefined when it has none. */
export function domainFilterOf(request: Pick<SearchRequest, "allowed_domains" | "blocked_domains">): DomainFilter | undefined {
  if (request.allowed_domains !== undefined) return { allowed: request.allowed_domains };
  if (request.blocked_domains !== undefined) return { blocked: request.blocked_domains };
  return undefined;
}

/** True when `host` is `domain` or one of its subdomains. Both are compared lower-case. */
export function hostMatchesDomain(host: string, domain: string): boolean {
  // A WHATWG URL's hostname is already lower-case; a fully qualified "example.com." is the
  // same host as "example.com".
  const bare = host.toLowerCase().replace(/\.$/, "");
  const wanted = domain.toLowerCase();
  return bare === wanted || bare.endsWith(`.${wanted}`);
}

/** True when a result on `host` may be returned under `filter`. */
export function passesDomainFilter(host: string, filter: DomainFilter | undefined): boolean {
  if (filter === undefined) return true;
  if (filter.allowed !== undefined) return filter.allowed.some((domain) => hostMatchesDomain(host, domain));
  if (filter.blocked !== undefined) return !filter.blocked.some((domain) => hostMatchesDomain(host, domain));
  return true;
}

/** Limits of a provider's query string: characters and words (whitespace-separated). */
export interface QueryLimits {
  maxChars: number;
  maxWords: number;
}

/**
 * The query with `site:` operators for `filter`, within `limits`:
 * - allowed domains: `query site:a.com OR site:b.com`, all of them or none (a subset would
 *   silently narrow the search to fewer domains than the caller allowed; without operators the
 *   results are still filtered afterwards);
 * - blocked domains: `query -site:a.com -site:b.com`, as many as fit, in the caller's order
 *   (every one that fits keeps results out; the rest are filtered afterwards).
 * Returns the query unchanged when nothing fits or there is no filter.
 */
export function withSiteOperators(query: string, filter: DomainFilter | undefined, limits: QueryLimits): string {
  if (filter === undefined) return query;
  const fits = (candidate: string) => candidate.length <= limits.maxChars && wordCount(candidate) <= limits.maxWords;
  if (filter.allowed !== undefined && filter.allowed.length > 0) {
    const candidate = `${query} ${filter.allowed.map((domain) => `site:${domain}`).join(" OR ")}`;
    return fits(candidate) ? candidate : query;
  }
  let out = query;
  for (const domain of filter.blocked ?? []) {
    const candidate = `${out} -site:${domain}`;
    if (!fits(candidate)) break;
    out = candidate;
  }
  return out;
}

function wordCount(text: string): number {
  return text.split(/\s+/u).filter((word) => word !== "").length;
}
