/**
 * Search provider API keys: from one Secrets Manager secret in AWS
 * (`{"brave_api_key": "…", "tavily_api_key": "…", "ollama_api_key": "…", "anthropic_api_key": "…"}`,
 * any of them), from the environment locally.
 *
 * Why an adapter and not `@middy/secrets-manager`: that middleware keeps its cache in a
 * module-global map keyed by name, refreshes it from a `setTimeout` that is not unref'd (it
 * keeps test processes alive), stores a rejected promise when a background refresh fails (an
 * unhandled rejection until the next request awaits it), and reads `Date.now()` directly, so
 * expiry can only be tested with real time. This adapter does the same job (fetched once per
 * cold start, cached with an expiry, refetched lazily on the first request after expiry)
 * with an injected client and clock, one in-flight fetch shared by concurrent requests, and
 * errors mapped to webgate codes.
 *
 * Why not Powertools Parameters (`SecretsProvider` / `getSecret`, not a dependency here): its
 * `BaseProvider.get` throws `GetParameterError` when a refresh after `maxAge` fails, where this
 * adapter keeps serving the last good keys for `staleRetryMs` (a Secrets Manager blip must not
 * take search down); that error carries the SDK's message, which can quote the secret's ARN;
 * concurrent requests after expiry each call GetSecretValue (no shared in-flight fetch); its
 * cache reads `Date.now()` (no injected clock); and it has no per-call timeout.
 *
 * A key's value never appears in an error message, a cause or a log field. A key that cannot be
 * sent in an HTTP header is refused when the keys are loaded (`search_not_configured` naming the
 * provider), so it never shows up later as an unreachable provider or triggers a failover.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import * as z from "../zod-mini";
import { WebgateError } from "../errors";

/** Keys for the providers that need one. An absent key means the provider is not configured. */
export interface ProviderKeys {
  braveApiKey?: string;
  tavilyApiKey?: string;
  ollamaApiKey?: string;
  anthropicApiKey?: string;
}

/** Each key: the provider it is for, its field in the secret and its local variable. */
const KEY_FIELDS = [
  { key: "braveApiKey", provider: "brave", secretField: "brave_api_key", envName: "BRAVE_API_KEY" },
  { key: "tavilyApiKey", provider: "tavily", secretField: "tavily_api_key", envName: "TAVILY_API_KEY" },
  { key: "ollamaApiKey", provider: "ollama", secretField: "ollama_api_key", envName: "OLLAMA_API_KEY" },
  { key: "anthropicApiKey", provider: "anthropic", secretField: "anthropic_api_key", envName: "ANTHROPIC_API_KEY" },
] as const;

// Printable ASCII without spaces: what every provider's keys are made of, and always a valid
// header value (RFC 9110 §5.5 field-vchar). Anything else (a pasted newline, a non-ASCII quote
// mark) would make the HTTP client refuse the header on every request.
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * Throws `search_not_configured` naming the first provider whose key cannot go in a header.
 * `from` says where the keys came from, for the operator's fix; the key itself is never shown.
 */
export function assertHeaderSafeKeys(keys: ProviderKeys, from: "secret" | "environment"): void {
  for (const field of KEY_FIELDS) {
    const value = keys[field.key];
    if (value === undefined || HEADER_SAFE.test(value)) continue;
    const where = from === "secret" ? `${field.secretField} in the provider secret` : field.envName;
    throw new WebgateError(
      "search_not_configured",
      `The ${field.provider} API key holds characters that cannot be sent in an HTTP header (only printable ASCII without spaces is possible); fix ${where}.`,
      { details: { provider: field.provider } },
    );
  }
}

/** Where the keys come from. `get` resolves to the current keys or throws a WebgateError. */
export interface ProviderKeySource {
  get(): Promise<ProviderKeys>;
}

/** Local mode: keys from the environment (already parsed by loadConfig), checked on each get. */
export function staticProviderKeys(keys: ProviderKeys): ProviderKeySource {
  const frozen = Object.freeze({ ...keys });
  return {
    // A throw inside the executor rejects the promise, as a key source's errors must.
    get: () =>
      new Promise<ProviderKeys>((resolve) => {
        assertHeaderSafeKeys(frozen, "environment");
        resolve(frozen);
      }),
  };
}

const nonEmpty = z.pipe(
  z.nullish(z.string()),
  z.transform((value: string | null | undefined) => (value === null || value === undefined || value.trim() === "" ? undefined : value.trim())),
);

// Other fields are allowed: operators may keep more in the same secret.
const secretShape = z.object({ brave_api_key: nonEmpty, tavily_api_key: nonEmpty, ollama_api_key: nonEmpty, anthropic_api_key: nonEmpty });

const SECRET_SHAPE_MESSAGE =
  'The provider secret is not a JSON object of the form {"brave_api_key": "…", "tavily_api_key": "…", "ollama_api_key": "…", "anthropic_api_key": "…"} (any of the keys); fix its value in Secrets Manager.';

/**
 * Parses the secret's `SecretString`. Throws `search_not_configured` (operator configuration)
 * without a cause: a JSON.parse error message quotes the input, i.e. the secret.
 */
export function parseProviderSecret(secretString: string | undefined): ProviderKeys {
  if (secretString === undefined) throw new WebgateError("search_not_configured", SECRET_SHAPE_MESSAGE);
  let json: unknown;
  try {
    json = JSON.parse(secretString);
  } catch {
    throw new WebgateError("search_not_configured", SECRET_SHAPE_MESSAGE);
  }
  const parsed = secretShape.safeParse(json);
  if (!parsed.success) throw new WebgateError("search_not_configured", SECRET_SHAPE_MESSAGE);
  const keys: ProviderKeys = {};
  if (parsed.data.brave_api_key !== undefined) keys.braveApiKey = parsed.data.brave_api_key;
  if (parsed.data.tavily_api_key !== undefined) keys.tavilyApiKey = parsed.data.tavily_api_key;
  if (parsed.data.ollama_api_key !== undefined) keys.ollamaApiKey = parsed.data.ollama_api_key;
  if (parsed.data.anthropic_api_key !== undefined) keys.anthropicApiKey = parsed.data.anthropic_api_key;
  assertHeaderSafeKeys(keys, "secret");
  return keys;
}

// Errors that will not go away by retrying: the operator must fix the ARN, the policy or the
// KMS key grant.
const CONFIGURATION_ERRORS = new Set(["ResourceNotFoundException", "AccessDeniedException", "DecryptionFailure", "InvalidRequestException", "ValidationException", "UnrecognizedClientException"]);

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "UnknownError";
}

/**
 * Maps a failed GetSecretValue to a webgate error. The message names the SDK error type only:
 * never the ARN, the account or the SDK message (which may quote the ARN).
 *
 * Unreachable, throttled or failing Secrets Manager → `provider_error` (502, retryable): the
 * provider keys are part of reaching the provider, the caller's remedy is the same as for a
 * provider outage (retry later), and the code is retryable. Not `search_not_configured`: that
 * says "the operator must act" and is not retryable. Not `internal`: its message is hidden
 * and a 500 says "a bug in webgate".
 */
export function secretLoadError(error: unknown): WebgateError {
  const name = errorName(error);
  if (CONFIGURATION_ERRORS.has(name)) {
    return new WebgateError("search_not_configured", `The provider secret cannot be read (${name}): check the secret ARN and the function's permission to read it.`);
  }
  return new WebgateError("provider_error", "The search provider keys could not be loaded from Secrets Manager; try again shortly.", {
    retryable: true,
    details: { provider_keys: "unavailable" },
  });
}

export interface SecretsManagerProviderKeysOptions {
  /** The SDK client, created once per cold start by the handler (endpoint override in tests). */
  client: Pick<SecretsManagerClient, "send">;
  secretId: string;
  /** How long a fetched value is used before the next request refetches it. Default 5 min. */
  cacheTtlMs?: number;
  /** After a failed refresh with a cached value in hand, how long to keep using it. Default 30 s. */
  staleRetryMs?: number;
  /** Bound on one GetSecretValue call (the SDK's own retries included). Default 5 s. */
  timeoutMs?: number;
  /** Milliseconds since the epoch; tests pass a fake. */
  now?: () => number;
}

/**
 * Keys from one Secrets Manager secret, cached per container. A failed refresh keeps serving
 * the last good keys for `staleRetryMs` (keys change rarely; a Secrets Manager blip should not
 * take search down); with no keys ever loaded the error is thrown and the next request retries.
 */
export class SecretsManagerProviderKeys implements ProviderKeySource {
  private cached: { keys: ProviderKeys; expiresAt: number } | undefined;
  private inFlight: Promise<ProviderKeys> | undefined;
  private readonly ttlMs: number;
  private readonly staleRetryMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(private readonly options: SecretsManagerProviderKeysOptions) {
    this.ttlMs = options.cacheTtlMs ?? 300_000;
    this.staleRetryMs = options.staleRetryMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.now = options.now ?? Date.now;
  }

  get(): Promise<ProviderKeys> {
    if (this.cached !== undefined && this.now() < this.cached.expiresAt) return Promise.resolve(this.cached.keys);
    // Concurrent requests after expiry share one fetch.
    this.inFlight ??= this.refresh().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async refresh(): Promise<ProviderKeys> {
    let secretString: string | undefined;
    try {
      const answer = await this.options.client.send(new GetSecretValueCommand({ SecretId: this.options.secretId }), {
        abortSignal: AbortSignal.timeout(this.timeoutMs),
      });
      secretString = answer.SecretString;
    } catch (error) {
      if (this.cached !== undefined) {
        this.cached = { keys: this.cached.keys, expiresAt: this.now() + this.staleRetryMs };
        return this.cached.keys;
      }
      throw secretLoadError(error);
    }
    const keys = parseProviderSecret(secretString);
    this.cached = { keys, expiresAt: this.now() + this.ttlMs };
    return keys;
  }
}
