/**
 * Start-up checks of the /search configuration (pure core). Runs once per cold start; any
 * problem is a {@link ConfigError} listing every problem, so a bad deployment fails loudly at
 * init instead of on the first search.
 */
import ipaddr from "ipaddr.js";
import { ConfigError, ENV, type WebgateConfig } from "../config";
import { PROVIDER_NAMES, type ProviderName } from "./schema";

/** The validated /search settings. Keys are absent here when they come from Secrets Manager. */
export interface SearchSettings {
  defaultProvider: ProviderName | undefined;
  /**
   * The providers taken for the default choice and the failover, in this order
   * (`WEBGATE_SEARCH_ORDER`); a provider left out is used only when a request names it.
   */
  order: ProviderName[];
  /** When set, keys come from this secret only (the *_API_KEY variables are ignored). */
  secretArn: string | undefined;
  braveApiKey: string | undefined;
  tavilyApiKey: string | undefined;
  ollamaApiKey: string | undefined;
  anthropicApiKey: string | undefined;
  searxngUrl: URL | undefined;
  braveEndpoint: URL;
  tavilyEndpoint: URL;
  ollamaEndpoint: URL;
  anthropicEndpoint: URL;
  anthropicModel: string;
}

/**
 * Checks `WEBGATE_SEARCH_ORDER`: known provider names (any case), each at most once, at least
 * one. Returns the order and the problems found.
 */
export function checkSearchOrder(raw: readonly string[]): { order: ProviderName[]; problems: string[] } {
  const problems: string[] = [];
  const order: ProviderName[] = [];
  for (const entry of raw) {
    const name = entry.toLowerCase();
    if (!(PROVIDER_NAMES as readonly string[]).includes(name)) {
      problems.push(`${ENV.SEARCH_ORDER}: "${entry.slice(0, 40)}" is not a provider (one of ${PROVIDER_NAMES.join(", ")})`);
    } else if (order.includes(name as ProviderName)) {
      problems.push(`${ENV.SEARCH_ORDER}: ${name} is listed twice`);
    } else {
      order.push(name as ProviderName);
    }
  }
  if (raw.length === 0) problems.push(`${ENV.SEARCH_ORDER}: must name at least one provider (${PROVIDER_NAMES.join(",")})`);
  return { order, problems };
}

// Model ids as the Messages API names them (claude-haiku-4-5, claude-3-5-haiku-20241022) and
// as proxies do (with a provider prefix, a version suffix after @ or :).
const MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/;

function isLoopbackHost(hostname: string): boolean {
  if (hostname === "localhost") return true;
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  if (!ipaddr.isValid(bare)) return false;
  // 127.0.0.0/8 and ::1 only; an IPv4-mapped form is refused rather than unwrapped.
  return ipaddr.parse(bare).range() === "loopback";
}

/**
 * Checks `SEARXNG_URL`: an absolute https URL, or http only on a loopback host (127.0.0.0/8,
 * ::1, localhost), without user name or password (they would travel in every request and
 * end up in logs). Returns the problems found; empty when valid.
 */
export function checkSearxngUrl(raw: string): { url?: URL; problems: string[] } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problems: [`${ENV.SEARXNG_URL}: not an absolute URL`] };
  }
  const problems: string[] = [];
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    problems.push(`${ENV.SEARXNG_URL}: must use https (or http on a loopback host), not ${url.protocol.replace(/:$/, "")}`);
  } else if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    problems.push(`${ENV.SEARXNG_URL}: plain http is allowed only on a loopback host (127.0.0.0/8, ::1, localhost); use https`);
  }
  if (url.username !== "" || url.password !== "") {
    problems.push(`${ENV.SEARXNG_URL}: must not hold a user name or password`);
  }
  return problems.length === 0 ? { url, problems } : { problems };
}

function checkEndpoint(name: string, raw: string, problems: string[]): URL {
  try {
    const url = new URL(raw);
    if (url.protocol !== "https:" && url.protocol !== "http:") problems.push(`${name}: must be an http(s) URL`);
    if (url.username !== "" || url.password !== "") problems.push(`${name}: must not hold a user name or password`);
    return url;
  } catch {
    problems.push(`${name}: not an absolute URL`);
    return new URL("http://invalid.invalid/");
  }
}

/** Validates the search part of the configuration. Throws {@link ConfigError} with every problem. */
export function resolveSearchSettings(config: WebgateConfig): SearchSettings {
  const problems: string[] = [];
  const { search } = config;
  let defaultProvider: ProviderName | undefined;
  if (search.defaultProvider !== undefined) {
    const wanted = search.defaultProvider.toLowerCase();
    if ((PROVIDER_NAMES as readonly string[]).includes(wanted)) defaultProvider = wanted as ProviderName;
    else problems.push(`${ENV.SEARCH_PROVIDER}: must be one of ${PROVIDER_NAMES.join(", ")}`);
  }
  let searxngUrl: URL | undefined;
  if (search.searxngUrl !== undefined) {
    const checked = checkSearxngUrl(search.searxngUrl);
    problems.push(...checked.problems);
    searxngUrl = checked.url;
  }
  const braveEndpoint = checkEndpoint(ENV.BRAVE_ENDPOINT, search.braveEndpoint, problems);
  const tavilyEndpoint = checkEndpoint(ENV.TAVILY_ENDPOINT, search.tavilyEndpoint, problems);
  const ollamaEndpoint = checkEndpoint(ENV.OLLAMA_ENDPOINT, search.ollamaEndpoint, problems);
  const anthropicEndpoint = checkEndpoint(ENV.ANTHROPIC_ENDPOINT, search.anthropicEndpoint, problems);
  if (!MODEL_PATTERN.test(search.anthropicModel)) {
    problems.push(`${ENV.ANTHROPIC_MODEL}: must be a model id such as claude-haiku-4-5 (letters, digits and . _ : @ / -, at most 128)`);
  }
  const { order, problems: orderProblems } = checkSearchOrder(search.order);
  problems.push(...orderProblems);
  if (problems.length > 0) throw new ConfigError(problems);
  const fromSecret = search.secretArn !== undefined;
  return {
    defaultProvider,
    order,
    secretArn: search.secretArn,
    braveApiKey: fromSecret ? undefined : search.braveApiKey,
    tavilyApiKey: fromSecret ? undefined : search.tavilyApiKey,
    ollamaApiKey: fromSecret ? undefined : search.ollamaApiKey,
    anthropicApiKey: fromSecret ? undefined : search.anthropicApiKey,
    searxngUrl,
    braveEndpoint,
    tavilyEndpoint,
    ollamaEndpoint,
    anthropicEndpoint,
    anthropicModel: search.anthropicModel,
  };
}
