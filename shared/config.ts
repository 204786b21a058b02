/**
 * Runtime configuration: the one place that reads `process.env`.
 *
 * The names of the variables are exported constants ({@link ENV}); the CDK code sets the same
 * constants, so infrastructure and runtime cannot drift. {@link loadConfig} parses the whole
 * environment once with zod and reports every problem in one start-up error.
 */
import * as z from "zod";

export const ENV = {
  // /fetch limits and policy.
  FETCH_TIMEOUT_MS: "WEBGATE_FETCH_TIMEOUT_MS",
  CONNECT_TIMEOUT_MS: "WEBGATE_CONNECT_TIMEOUT_MS",
  MAX_RESPONSE_BYTES: "WEBGATE_MAX_RESPONSE_BYTES",
  MAX_REDIRECTS: "WEBGATE_MAX_REDIRECTS",
  ALLOWED_DOMAINS: "WEBGATE_ALLOWED_DOMAINS",
  BLOCKED_DOMAINS: "WEBGATE_BLOCKED_DOMAINS",
  ALLOWED_PORTS: "WEBGATE_ALLOWED_PORTS",
  BLOCKED_CIDRS: "WEBGATE_BLOCKED_CIDRS",
  ALLOW_LOCALHOST: "WEBGATE_ALLOW_LOCALHOST",
  URL_SECRET_CHECK: "WEBGATE_URL_SECRET_CHECK",
  // Reach (issue 12): robots.txt policy and the PDF page cap.
  ROBOTS: "WEBGATE_ROBOTS",
  PDF_MAX_PAGES: "WEBGATE_PDF_MAX_PAGES",
  // Page store.
  TABLE_NAME: "WEBGATE_TABLE_NAME",
  DYNAMODB_ENDPOINT: "WEBGATE_DYNAMODB_ENDPOINT",
  CACHE_TTL_S: "WEBGATE_CACHE_TTL_S",
  // /search.
  SEARCH_PROVIDER: "WEBGATE_SEARCH_PROVIDER",
  PROVIDER_SECRET_ARN: "WEBGATE_PROVIDER_SECRET_ARN",
  BRAVE_API_KEY: "BRAVE_API_KEY",
  TAVILY_API_KEY: "TAVILY_API_KEY",
  SEARXNG_URL: "SEARXNG_URL",
  BRAVE_ENDPOINT: "WEBGATE_BRAVE_ENDPOINT",
  TAVILY_ENDPOINT: "WEBGATE_TAVILY_ENDPOINT",
  ANTHROPIC_API_KEY: "ANTHROPIC_API_KEY",
  OLLAMA_API_KEY: "OLLAMA_API_KEY",
  ANTHROPIC_ENDPOINT: "WEBGATE_ANTHROPIC_ENDPOINT",
  ANTHROPIC_MODEL: "WEBGATE_ANTHROPIC_MODEL",
  OLLAMA_ENDPOINT: "WEBGATE_OLLAMA_ENDPOINT",
  SEARCH_ORDER: "WEBGATE_SEARCH_ORDER",
  // Rendering (`render`).
  RENDER_WAIT_MS: "WEBGATE_RENDER_WAIT_MS",
  RENDER_CONCURRENCY: "WEBGATE_RENDER_CONCURRENCY",
  CHROMIUM_PATH: "WEBGATE_CHROMIUM_PATH",
  RENDER_FUNCTION_NAME: "WEBGATE_RENDER_FUNCTION_NAME",
  // Local server only.
  API_KEYS: "WEBGATE_API_KEYS",
  PORT: "PORT",
} as const;

export type EnvName = (typeof ENV)[keyof typeof ENV];

export const DEFAULTS = {
  fetchTimeoutMs: 30_000,
  connectTimeoutMs: 5_000,
  maxResponseBytes: 5_242_880,
  maxRedirects: 5,
  allowedPorts: [80, 443],
  robots: "respect" as "respect" | "ignore",
  pdfMaxPages: 500,
  cacheTtlSeconds: 3_600,
  tableName: "webgate-pages",
  port: 8787,
  braveEndpoint: "https://api.search.brave.com/res/v1/web/search",
  tavilyEndpoint: "https://api.tavily.com/search",
  anthropicEndpoint: "https://api.anthropic.com",
  anthropicModel: "claude-haiku-4-5",
  ollamaEndpoint: "https://ollama.com",
  searchOrder: ["brave", "tavily", "searxng", "ollama", "anthropic"],
  renderWaitMs: 5_000,
  renderConcurrency: 2,
} as const;

const intInRange = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .pipe(z.number().int().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`));

const list = z
  .string()
  .transform((value) => value.split(",").map((item) => item.trim()).filter((item) => item.length > 0));

const bool = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => v === "true" || v === "false" || v === "1" || v === "0" || v === "", `${name} must be true or false`)
    .transform((v) => v === "true" || v === "1");

const optionalNonEmpty = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v));

const envSchema = z.object({
  [ENV.FETCH_TIMEOUT_MS]: intInRange(ENV.FETCH_TIMEOUT_MS, 1_000, 120_000).optional(),
  [ENV.CONNECT_TIMEOUT_MS]: intInRange(ENV.CONNECT_TIMEOUT_MS, 100, 60_000).optional(),
  [ENV.MAX_RESPONSE_BYTES]: intInRange(ENV.MAX_RESPONSE_BYTES, 1_024, 52_428_800).optional(),
  [ENV.MAX_REDIRECTS]: intInRange(ENV.MAX_REDIRECTS, 0, 20).optional(),
  [ENV.ALLOWED_DOMAINS]: list.optional(),
  [ENV.BLOCKED_DOMAINS]: list.optional(),
  [ENV.ALLOWED_PORTS]: list.optional(),
  [ENV.BLOCKED_CIDRS]: list.optional(),
  [ENV.ALLOW_LOCALHOST]: bool(ENV.ALLOW_LOCALHOST).optional(),
  [ENV.URL_SECRET_CHECK]: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(["refuse", "flag", "off"], { error: `${ENV.URL_SECRET_CHECK} must be refuse, flag or off` }))
    .optional(),
  [ENV.ROBOTS]: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(["respect", "ignore"], { error: `${ENV.ROBOTS} must be respect or ignore` }))
    .optional(),
  [ENV.PDF_MAX_PAGES]: intInRange(ENV.PDF_MAX_PAGES, 1, 10_000).optional(),
  [ENV.TABLE_NAME]: optionalNonEmpty.optional(),
  [ENV.DYNAMODB_ENDPOINT]: optionalNonEmpty.optional(),
  [ENV.CACHE_TTL_S]: intInRange(ENV.CACHE_TTL_S, 60, 604_800).optional(),
  [ENV.SEARCH_PROVIDER]: optionalNonEmpty.optional(),
  [ENV.PROVIDER_SECRET_ARN]: optionalNonEmpty.optional(),
  [ENV.BRAVE_API_KEY]: optionalNonEmpty.optional(),
  [ENV.TAVILY_API_KEY]: optionalNonEmpty.optional(),
  [ENV.SEARXNG_URL]: optionalNonEmpty.optional(),
  [ENV.BRAVE_ENDPOINT]: optionalNonEmpty.optional(),
  [ENV.TAVILY_ENDPOINT]: optionalNonEmpty.optional(),
  [ENV.ANTHROPIC_API_KEY]: optionalNonEmpty.optional(),
  [ENV.OLLAMA_API_KEY]: optionalNonEmpty.optional(),
  [ENV.ANTHROPIC_ENDPOINT]: optionalNonEmpty.optional(),
  [ENV.ANTHROPIC_MODEL]: optionalNonEmpty.optional(),
  [ENV.OLLAMA_ENDPOINT]: optionalNonEmpty.optional(),
  [ENV.SEARCH_ORDER]: list.optional(),
  [ENV.RENDER_WAIT_MS]: intInRange(ENV.RENDER_WAIT_MS, 0, 30_000).optional(),
  [ENV.RENDER_CONCURRENCY]: intInRange(ENV.RENDER_CONCURRENCY, 1, 16).optional(),
  [ENV.CHROMIUM_PATH]: optionalNonEmpty.optional(),
  [ENV.RENDER_FUNCTION_NAME]: optionalNonEmpty.optional(),
  [ENV.API_KEYS]: list.optional(),
  [ENV.PORT]: intInRange(ENV.PORT, 0, 65_535).optional(),
});

/** Raised at start-up when the environment is invalid; lists every problem at once. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n- ${problems.join("\n- ")}`);
  }
}

export interface WebgateConfig {
  fetch: {
    timeoutMs: number;
    connectTimeoutMs: number;
    maxResponseBytes: number;
    maxRedirects: number;
    allowedDomains: string[];
    blockedDomains: string[];
    allowedPorts: number[];
    /** Extra address ranges to refuse on top of the built-in policy (validated by the guard). */
    blockedCidrs: string[];
    allowLocalhost: boolean;
    /** What /fetch does with a URL whose path or query looks like it carries a key or token. */
    urlSecretCheck: "refuse" | "flag" | "off";
    /** robots.txt: `respect` checks every origin request against it (RFC 9309); `ignore` skips it. */
    robots: "respect" | "ignore";
    /** Pages of a PDF read at most; the rest is reported as `truncated`. */
    pdfMaxPages: number;
  };
  store: {
    tableName: string;
    endpoint: string | undefined;
    ttlSeconds: number;
  };
  search: {
    defaultProvider: string | undefined;
    secretArn: string | undefined;
    braveApiKey: string | undefined;
    tavilyApiKey: string | undefined;
    searxngUrl: string | undefined;
    braveEndpoint: string;
    tavilyEndpoint: string;
    anthropicApiKey: string | undefined;
    ollamaApiKey: string | undefined;
    anthropicEndpoint: string;
    anthropicModel: string;
    ollamaEndpoint: string;
    /** Provider names as given (validated by the search start-up checks). */
    order: string[];
  };
  render: {
    /** Longest wait for the network to go idle once the document has loaded. */
    waitMs: number;
    /** Pages one process renders at once. */
    concurrency: number;
    /** The Chromium binary; unset: the usual install locations are tried. */
    chromiumPath: string | undefined;
    /** In AWS: the render function the fetch function invokes; unset: render in process. */
    functionName: string | undefined;
  };
  local: {
    apiKeys: string[];
    port: number;
  };
}

/**
 * Parses the environment. Unknown variables are ignored; every invalid known variable is
 * reported. Deeper checks that belong to a feature (domain list syntax, the SearXNG URL) are
 * made by that feature's own start-up code and also throw {@link ConfigError}.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): WebgateConfig {
  const known: Record<string, string> = {};
  for (const name of Object.values(ENV)) {
    const value = env[name];
    if (value !== undefined) known[name] = value;
  }
  const parsed = envSchema.safeParse(known);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  }
  const e = parsed.data;
  const ports = (e[ENV.ALLOWED_PORTS] ?? DEFAULTS.allowedPorts.map(String)).map(Number);
  const badPorts = ports.filter((p) => !Number.isInteger(p) || p < 1 || p > 65_535);
  if (badPorts.length > 0) {
    throw new ConfigError([`${ENV.ALLOWED_PORTS}: every entry must be a port from 1 to 65535`]);
  }
  return {
    fetch: {
      timeoutMs: e[ENV.FETCH_TIMEOUT_MS] ?? DEFAULTS.fetchTimeoutMs,
      connectTimeoutMs: e[ENV.CONNECT_TIMEOUT_MS] ?? DEFAULTS.connectTimeoutMs,
      maxResponseBytes: e[ENV.MAX_RESPONSE_BYTES] ?? DEFAULTS.maxResponseBytes,
      maxRedirects: e[ENV.MAX_REDIRECTS] ?? DEFAULTS.maxRedirects,
      allowedDomains: e[ENV.ALLOWED_DOMAINS] ?? [],
      blockedDomains: e[ENV.BLOCKED_DOMAINS] ?? [],
      allowedPorts: ports,
      blockedCidrs: e[ENV.BLOCKED_CIDRS] ?? [],
      allowLocalhost: e[ENV.ALLOW_LOCALHOST] ?? false,
      urlSecretCheck: e[ENV.URL_SECRET_CHECK] ?? "flag",
      robots: e[ENV.ROBOTS] ?? DEFAULTS.robots,
      pdfMaxPages: e[ENV.PDF_MAX_PAGES] ?? DEFAULTS.pdfMaxPages,
    },
    store: {
      tableName: e[ENV.TABLE_NAME] ?? DEFAULTS.tableName,
      endpoint: e[ENV.DYNAMODB_ENDPOINT],
      ttlSeconds: e[ENV.CACHE_TTL_S] ?? DEFAULTS.cacheTtlSeconds,
    },
    search: {
      defaultProvider: e[ENV.SEARCH_PROVIDER],
      secretArn: e[ENV.PROVIDER_SECRET_ARN],
      braveApiKey: e[ENV.BRAVE_API_KEY],
      tavilyApiKey: e[ENV.TAVILY_API_KEY],
      searxngUrl: e[ENV.SEARXNG_URL],
      braveEndpoint: e[ENV.BRAVE_ENDPOINT] ?? DEFAULTS.braveEndpoint,
      tavilyEndpoint: e[ENV.TAVILY_ENDPOINT] ?? DEFAULTS.tavilyEndpoint,
      anthropicApiKey: e[ENV.ANTHROPIC_API_KEY],
      ollamaApiKey: e[ENV.OLLAMA_API_KEY],
      anthropicEndpoint: e[ENV.ANTHROPIC_ENDPOINT] ?? DEFAULTS.anthropicEndpoint,
      anthropicModel: e[ENV.ANTHROPIC_MODEL] ?? DEFAULTS.anthropicModel,
      ollamaEndpoint: e[ENV.OLLAMA_ENDPOINT] ?? DEFAULTS.ollamaEndpoint,
      order: e[ENV.SEARCH_ORDER] ?? [...DEFAULTS.searchOrder],
    },
    render: {
      waitMs: e[ENV.RENDER_WAIT_MS] ?? DEFAULTS.renderWaitMs,
      concurrency: e[ENV.RENDER_CONCURRENCY] ?? DEFAULTS.renderConcurrency,
      chromiumPath: e[ENV.CHROMIUM_PATH],
      functionName: e[ENV.RENDER_FUNCTION_NAME],
    },
    local: {
      apiKeys: e[ENV.API_KEYS] ?? [],
      port: e[ENV.PORT] ?? DEFAULTS.port,
    },
  };
}
