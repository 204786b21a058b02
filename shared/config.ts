/**
 * Runtime configuration: the one place that reads `process.env`.
 *
 * The names of the variables are exported constants ({@link ENV}); the CDK code sets the same
 * constants, so infrastructure and runtime cannot drift. {@link loadConfig} parses the whole
 * environment once with zod and reports every problem, with its variable and value, in one
 * start-up error. The field schemas ({@link CONFIG_FIELDS}) are the ones the CDK environments
 * validate with, and {@link DEFAULTS} is the one place defaults are written.
 *
 * The schemas are written with zod's tree-shakable API (shared/zod-mini.ts): every function
 * parses its environment with them at cold start, and the classic API's methods were ~60 KB of
 * every bundle (docs/performance.md, Function bundles). The CDK code calls classic methods on the
 * field schemas (`.optional()`, `.default()`), so {@link CONFIG_FIELDS} hands it the same schemas
 * behind classic zod's `z.lazy`; nothing in a function bundle refers to that view.
 */
import ipaddr from "ipaddr.js";
import * as classic from "zod";
import * as z from "./zod-mini";
import { checkCidrEntry, checkDomainEntry, isPort, type EntryCheck } from "./guard/policy-entries";
import { PROVIDER_NAMES, type ProviderName } from "./search/provider-names";

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

// ---------------------------------------------------------------------------------------------
// Field schemas: one per setting, on typed values. The environment parser below feeds them the
// variables' strings; the CDK environments (infra/environments.ts) feed them cdk.json's values.
// Each message is a phrase about the value ("must be a whole number from 0 to 20"); the
// variable and the value are put in front of it by whoever reports the problem.
//
// Every schema here is built on first use, not at import: a function's cold start parses the
// handful of variables its environment sets, and building the schemas of all the others too
// (some 230 zod objects, each with its methods bound) cost every cold start time for nothing
// (docs/performance.md, Function bundles).
// ---------------------------------------------------------------------------------------------

/** An object whose each property is built by its factory on first read, then kept. */
function lazyFields<T extends Record<string, () => object>>(factories: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const fields = {} as { [K in keyof T]: ReturnType<T[K]> };
  for (const name of Object.keys(factories) as Array<keyof T>) {
    let built: ReturnType<T[typeof name]> | undefined;
    Object.defineProperty(fields, name, { enumerable: true, get: () => (built ??= factories[name]!() as ReturnType<T[typeof name]>) });
  }
  return fields;
}

/** A whole number in [min, max]; every way to miss it gets the same message. */
function wholeNumber(min: number, max: number) {
  const error = `must be a whole number from ${min} to ${max}`;
  return z.number({ error }).check(z.int({ error }), z.gte(min, { error }), z.lte(max, { error }));
}

/** A string schema that maps to a checked value or reports why not (the entry is quoted). */
function checkedEntry(check: (raw: string) => EntryCheck) {
  return z.pipe(z.string(), z.transform((raw: string, ctx) => {
    const checked = check(raw);
    if (checked.ok) return checked.value;
    ctx.issues.push({ code: "custom", input: raw, message: `"${raw.trim().slice(0, 80)}" ${checked.reason}` });
    return z.NEVER;
  }));
}

/** `https:` and `http:` URLs without user name or password (they would travel in every request and end up in logs). */
function checkedUrl(schemes: string, extra?: (url: URL) => string | undefined) {
  return z.pipe(z.string(), z.transform((raw: string, ctx) => {
    let url: URL;
    try {
      url = new URL(raw.trim());
    } catch {
      ctx.issues.push({ code: "custom", input: raw, message: "must be an absolute URL" });
      return z.NEVER;
    }
    const problems: string[] = [];
    if (url.protocol !== "https:" && url.protocol !== "http:") problems.push(`must use ${schemes}, not ${url.protocol.replace(/:$/, "")}`);
    else {
      const more = extra?.(url);
      if (more !== undefined) problems.push(more);
    }
    if (url.username !== "" || url.password !== "") problems.push("must not hold a user name or password");
    for (const message of problems) ctx.issues.push({ code: "custom", input: raw, message });
    return problems.length === 0 ? url : z.NEVER;
  }));
}

function isLoopbackHost(hostname: string): boolean {
  if (hostname === "localhost") return true;
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  if (!ipaddr.isValid(bare)) return false;
  // 127.0.0.0/8 and ::1 only; an IPv4-mapped form is refused rather than unwrapped.
  return ipaddr.parse(bare).range() === "loopback";
}

const providerNames = PROVIDER_NAMES.join(", ");

/** A string trimmed and in lower case, then one of `values`. */
const lowerCaseChoice = <const T extends readonly [string, ...string[]]>(values: T, error: string) =>
  z.pipe(z.string().check(z.trim(), z.toLowerCase()), z.enum(values, { error }));

/** A provider name in any case, as the lower-case name. */
const providerName = () => lowerCaseChoice(PROVIDER_NAMES, `must be one of ${providerNames}`);

/**
 * The settings' field schemas (the runtime's form), shared by the runtime environment parser and,
 * through {@link CONFIG_FIELDS}, the CDK environments: a value one accepts is a value the other
 * accepts. Each is built on first read.
 */
const FIELDS = lazyFields({
  fetchTimeoutMs: () => wholeNumber(1_000, 120_000),
  connectTimeoutMs: () => wholeNumber(100, 60_000),
  maxResponseBytes: () => wholeNumber(1_024, 52_428_800),
  maxRedirects: () => wholeNumber(0, 20),
  cacheTtlSeconds: () => wholeNumber(60, 604_800),
  localPort: () => wholeNumber(0, 65_535),
  /** robots.txt policy, any case. */
  robots: () => lowerCaseChoice(["respect", "ignore"], "must be respect or ignore"),
  pdfMaxPages: () => wholeNumber(1, 10_000),
  urlSecretCheck: () => lowerCaseChoice(["refuse", "flag", "off"], "must be refuse, flag or off"),
  renderWaitMs: () => wholeNumber(0, 30_000),
  renderConcurrency: () => wholeNumber(1, 16),
  /** `example.com` or `*.example.com` entries, normalized (lower-case punycode, no trailing dot). */
  domainList: () => z.array(checkedEntry(checkDomainEntry)),
  /** Canonical address ranges, normalized. */
  cidrList: () => z.array(checkedEntry(checkCidrEntry)),
  providerName,
  /** Known provider names (any case), each at most once, at least one. */
  searchOrder: () => z.pipe(z.array(z.string()), z.transform((raw: string[], ctx) => {
    const order: ProviderName[] = [];
    for (const entry of raw) {
      const parsed = FIELDS.providerName.safeParse(entry);
      if (!parsed.success) {
        ctx.issues.push({ code: "custom", input: raw, message: `"${entry.slice(0, 40)}" is not a provider (one of ${providerNames})` });
      } else if (order.includes(parsed.data)) {
        ctx.issues.push({ code: "custom", input: raw, message: `${parsed.data} is listed twice` });
      } else {
        order.push(parsed.data);
      }
    }
    if (raw.length === 0) ctx.issues.push({ code: "custom", input: raw, message: `must name at least one provider (${PROVIDER_NAMES.join(",")})` });
    return order;
  })),
  /**
   * A SearXNG instance: https, or http only on a loopback host (127.0.0.0/8, ::1, localhost),
   * without user name or password.
   */
  searxngUrl: () =>
    checkedUrl("https (or http on a loopback host)", (url) =>
      url.protocol === "http:" && !isLoopbackHost(url.hostname)
        ? "plain http is allowed only on a loopback host (127.0.0.0/8, ::1, localhost); use https"
        : undefined,
    ),
  /** A provider endpoint override: an http(s) URL without credentials. */
  endpoint: () => checkedUrl("http or https"),
  /**
   * A model id as the Messages API names them (claude-haiku-4-5, claude-3-5-haiku-20241022) and
   * as proxies do (with a provider prefix, a version suffix after @ or :).
   */
  anthropicModel: () =>
    z
      .string()
      .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/, "must be a model id such as claude-haiku-4-5 (letters, digits and . _ : @ / -, at most 128)")),
});

/** Each of {@link FIELDS} behind classic zod's `z.lazy`: the same parse, with classic's methods. */
function classicFields<T extends Record<string, z.core.$ZodType>>(fields: T): { readonly [K in keyof T]: classic.ZodLazy<T[K]> } {
  return lazyFields(
    Object.fromEntries(Object.keys(fields).map((name) => [name, () => classic.lazy(() => fields[name]!)])) as { [K in keyof T]: () => classic.ZodLazy<T[K]> },
  );
}

/**
 * The settings' field schemas for the CDK environments (infra/environments.ts): {@link FIELDS}
 * with classic zod's methods, which that code calls. Built only where it is read (pure: a
 * function bundle, which never reads it, leaves it and classic zod out).
 */
export const CONFIG_FIELDS = /* @__PURE__ */ classicFields(FIELDS);

// ---------------------------------------------------------------------------------------------
// The environment: strings in, the field schemas above applied. Like the field schemas, each
// variable's schema is built only when the environment sets the variable.
// ---------------------------------------------------------------------------------------------

/** Decimal digits only (no sign, exponent or hex), then the field's range. */
const envWhole = (field: z.ZodMiniType<number, number>) =>
  z.pipe(
    z.pipe(
      z.string().check(z.trim()),
      z.transform((v: string) => (/^\d+$/.test(v) ? Number(v) : Number.NaN)),
    ),
    field,
  );

const envList = () => z.pipe(z.string(), z.transform((value: string) => value.split(",").map((item) => item.trim()).filter((item) => item.length > 0)));

const envPorts = () =>
  z.pipe(
    envList(),
    z.array(
      z.pipe(
        z.string(),
        z.transform((entry: string, ctx) => {
          const port = /^\d+$/.test(entry) ? Number(entry) : Number.NaN;
          if (isPort(port)) return port;
          ctx.issues.push({ code: "custom", input: entry, message: `"${entry.slice(0, 20)}" is not a port from 1 to 65535` });
          return z.NEVER;
        }),
      ),
    ),
  );

const envBool = () =>
  z.pipe(
    z.string().check(
      z.trim(),
      z.toLowerCase(),
      z.refine((v: string) => v === "true" || v === "false" || v === "1" || v === "0" || v === "", "must be true or false"),
    ),
    z.transform((v: string) => v === "true" || v === "1"),
  );

/** A string variable where empty means unset. */
const optionalNonEmpty = () =>
  z.pipe(
    z.string().check(z.trim()),
    z.transform((v: string) => (v === "" ? undefined : v)),
  );

/** A variable whose empty value means unset, then the field schema. */
const envOptional = <T>(field: z.ZodMiniType<T, string>) => z.pipe(optionalNonEmpty(), z.optional(field));

/** Each variable's schema, in the order its problems are reported. */
const ENV_FIELDS = {
  [ENV.FETCH_TIMEOUT_MS]: () => z.optional(envWhole(FIELDS.fetchTimeoutMs)),
  [ENV.CONNECT_TIMEOUT_MS]: () => z.optional(envWhole(FIELDS.connectTimeoutMs)),
  [ENV.MAX_RESPONSE_BYTES]: () => z.optional(envWhole(FIELDS.maxResponseBytes)),
  [ENV.MAX_REDIRECTS]: () => z.optional(envWhole(FIELDS.maxRedirects)),
  [ENV.ALLOWED_DOMAINS]: () => z.optional(z.pipe(envList(), FIELDS.domainList)),
  [ENV.BLOCKED_DOMAINS]: () => z.optional(z.pipe(envList(), FIELDS.domainList)),
  [ENV.ALLOWED_PORTS]: () => z.optional(envPorts()),
  [ENV.BLOCKED_CIDRS]: () => z.optional(z.pipe(envList(), FIELDS.cidrList)),
  [ENV.ALLOW_LOCALHOST]: () => z.optional(envBool()),
  [ENV.URL_SECRET_CHECK]: () => z.optional(FIELDS.urlSecretCheck),
  [ENV.ROBOTS]: () => z.optional(FIELDS.robots),
  [ENV.PDF_MAX_PAGES]: () => z.optional(envWhole(FIELDS.pdfMaxPages)),
  [ENV.TABLE_NAME]: () => z.optional(optionalNonEmpty()),
  [ENV.DYNAMODB_ENDPOINT]: () => z.optional(optionalNonEmpty()),
  [ENV.CACHE_TTL_S]: () => z.optional(envWhole(FIELDS.cacheTtlSeconds)),
  [ENV.SEARCH_PROVIDER]: () => z.optional(envOptional(FIELDS.providerName)),
  [ENV.PROVIDER_SECRET_ARN]: () => z.optional(optionalNonEmpty()),
  [ENV.BRAVE_API_KEY]: () => z.optional(optionalNonEmpty()),
  [ENV.TAVILY_API_KEY]: () => z.optional(optionalNonEmpty()),
  [ENV.SEARXNG_URL]: () => z.optional(envOptional(FIELDS.searxngUrl)),
  [ENV.BRAVE_ENDPOINT]: () => z.optional(envOptional(FIELDS.endpoint)),
  [ENV.TAVILY_ENDPOINT]: () => z.optional(envOptional(FIELDS.endpoint)),
  [ENV.ANTHROPIC_API_KEY]: () => z.optional(optionalNonEmpty()),
  [ENV.OLLAMA_API_KEY]: () => z.optional(optionalNonEmpty()),
  [ENV.ANTHROPIC_ENDPOINT]: () => z.optional(envOptional(FIELDS.endpoint)),
  [ENV.ANTHROPIC_MODEL]: () => z.optional(envOptional(FIELDS.anthropicModel)),
  [ENV.OLLAMA_ENDPOINT]: () => z.optional(envOptional(FIELDS.endpoint)),
  [ENV.SEARCH_ORDER]: () => z.optional(z.pipe(envList(), FIELDS.searchOrder)),
  [ENV.RENDER_WAIT_MS]: () => z.optional(envWhole(FIELDS.renderWaitMs)),
  [ENV.RENDER_CONCURRENCY]: () => z.optional(envWhole(FIELDS.renderConcurrency)),
  [ENV.CHROMIUM_PATH]: () => z.optional(optionalNonEmpty()),
  [ENV.RENDER_FUNCTION_NAME]: () => z.optional(optionalNonEmpty()),
  [ENV.API_KEYS]: () => z.optional(envList()),
  [ENV.PORT]: () => z.optional(envWhole(FIELDS.localPort)),
} satisfies Record<EnvName, () => z.ZodMiniType<unknown, string | undefined>>;

/** The parsed environment: each variable's value as its schema outputs it, or absent. */
type EnvValues = { [K in keyof typeof ENV_FIELDS]?: z.output<ReturnType<(typeof ENV_FIELDS)[K]>> };

/** One object schema over the variables that are set (an unset one is `undefined` either way). */
function envSchemaFor(known: Record<string, string>): z.ZodMiniType<EnvValues, Record<string, string>> {
  const shape: Record<string, z.ZodMiniType<unknown, string | undefined>> = {};
  for (const [name, field] of Object.entries(ENV_FIELDS)) if (known[name] !== undefined) shape[name] = field();
  return z.object(shape) as unknown as z.ZodMiniType<EnvValues, Record<string, string>>;
}

/** Variables whose values never appear in a problem (keys travel as secrets). */
const SECRET_VARIABLES: ReadonlySet<string> = new Set([ENV.BRAVE_API_KEY, ENV.TAVILY_API_KEY, ENV.ANTHROPIC_API_KEY, ENV.OLLAMA_API_KEY, ENV.API_KEYS]);

/**
 * A value as a problem shows it: secrets hidden, a URL's user name and password masked, control
 * characters and spaces made visible (quoted), long values cut.
 */
function displayValue(name: string, raw: string): string {
  if (SECRET_VARIABLES.has(name)) return "(hidden)";
  const masked = raw.replace(/^([^@/]*\/\/)?[^@/]*@/, (_whole, scheme: string | undefined) => `${scheme ?? ""}***@`);
  const cut = masked.length > 100 ? `${masked.slice(0, 100)}…` : masked;
  return /^[\x21-\x7e…]+$/.test(cut) ? cut : JSON.stringify(cut);
}

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
    /** Normalized entries (lower-case punycode, no trailing dot). */
    allowedDomains: string[];
    blockedDomains: string[];
    allowedPorts: number[];
    /** Extra address ranges to refuse on top of the built-in policy, in canonical spelling. */
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
    defaultProvider: ProviderName | undefined;
    secretArn: string | undefined;
    braveApiKey: string | undefined;
    tavilyApiKey: string | undefined;
    searxngUrl: URL | undefined;
    braveEndpoint: URL;
    tavilyEndpoint: URL;
    anthropicApiKey: string | undefined;
    ollamaApiKey: string | undefined;
    anthropicEndpoint: URL;
    anthropicModel: string;
    ollamaEndpoint: URL;
    /** The providers for the default choice and the failover, in this order. */
    order: ProviderName[];
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

export interface LoadConfigOptions {
  /**
   * Set by the Lambda /fetch entry point: `WEBGATE_ALLOW_LOCALHOST` is a local-server switch,
   * and inside Lambda loopback is the runtime API on 127.0.0.1:9001 (other invocations' events
   * and the function's own response path), so it is refused with the other problems.
   */
  lambda?: boolean;
}

/**
 * Parses the environment in one pass. Unknown variables are ignored; every invalid known
 * variable is reported in one {@link ConfigError}, each problem as `NAME=value: what is wrong`
 * (secret values hidden, URL credentials masked). Nothing downstream validates the environment
 * again: a config this returns starts.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, options: LoadConfigOptions = {}): WebgateConfig {
  const known: Record<string, string> = {};
  for (const name of Object.values(ENV)) {
    const value = env[name];
    if (value !== undefined) known[name] = value;
  }
  const parsed = envSchemaFor(known).safeParse(known);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0]);
      problems.push(`${name}=${displayValue(name, known[name] ?? "")}: ${issue.message}`);
    }
  }
  if (options.lambda === true && parsed.success && parsed.data[ENV.ALLOW_LOCALHOST] === true) {
    problems.push(`${ENV.ALLOW_LOCALHOST}=${known[ENV.ALLOW_LOCALHOST]}: a local-server switch that must not be set on the Lambda function`);
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError([...new Set(problems)]);
  const e = parsed.data;
  return {
    fetch: {
      timeoutMs: e[ENV.FETCH_TIMEOUT_MS] ?? DEFAULTS.fetchTimeoutMs,
      connectTimeoutMs: e[ENV.CONNECT_TIMEOUT_MS] ?? DEFAULTS.connectTimeoutMs,
      maxResponseBytes: e[ENV.MAX_RESPONSE_BYTES] ?? DEFAULTS.maxResponseBytes,
      maxRedirects: e[ENV.MAX_REDIRECTS] ?? DEFAULTS.maxRedirects,
      allowedDomains: unique(e[ENV.ALLOWED_DOMAINS] ?? []),
      blockedDomains: unique(e[ENV.BLOCKED_DOMAINS] ?? []),
      allowedPorts: e[ENV.ALLOWED_PORTS] ?? [...DEFAULTS.allowedPorts],
      blockedCidrs: unique(e[ENV.BLOCKED_CIDRS] ?? []),
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
      braveEndpoint: e[ENV.BRAVE_ENDPOINT] ?? new URL(DEFAULTS.braveEndpoint),
      tavilyEndpoint: e[ENV.TAVILY_ENDPOINT] ?? new URL(DEFAULTS.tavilyEndpoint),
      anthropicApiKey: e[ENV.ANTHROPIC_API_KEY],
      ollamaApiKey: e[ENV.OLLAMA_API_KEY],
      anthropicEndpoint: e[ENV.ANTHROPIC_ENDPOINT] ?? new URL(DEFAULTS.anthropicEndpoint),
      anthropicModel: e[ENV.ANTHROPIC_MODEL] ?? DEFAULTS.anthropicModel,
      ollamaEndpoint: e[ENV.OLLAMA_ENDPOINT] ?? new URL(DEFAULTS.ollamaEndpoint),
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

/** The Lambda /fetch function's configuration: {@link loadConfig} of `process.env` with `lambda` set. */
export function loadFetchFunctionConfig(): WebgateConfig {
  return loadConfig(process.env, { lambda: true });
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
