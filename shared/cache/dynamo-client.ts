/**
 * Builds the DynamoDB client the page store uses, tuned to fail fast: a lookup or a save that
 * cannot finish quickly is worth less than answering from the origin with `"cache": "bypass"`.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";

/** Options of {@link createDynamoClient}; all optional, none read from the environment here. */
export interface DynamoClientOptions {
  /** Another DynamoDB endpoint (the local emulator); dummy credentials are used with it. */
  endpoint?: string;
  /** Region; when absent the SDK's default chain (Lambda's `AWS_REGION`) decides, or `us-east-1` locally. */
  region?: string;
  /** TCP connect limit per attempt. Default 1,000 ms. */
  connectTimeoutMs?: number;
  /** Whole request/response limit per attempt. Default 2,000 ms. */
  requestTimeoutMs?: number;
  /** Attempts including the first. Default 2: one retry absorbs a blip, more only delays the bypass. */
  maxAttempts?: number;
}

/** Defaults of {@link createDynamoClient}. Worst case per call ≈ maxAttempts × (connect + request) + backoff. */
export const DYNAMO_CLIENT_DEFAULTS = {
  connectTimeoutMs: 1_000,
  requestTimeoutMs: 2_000,
  maxAttempts: 2,
} as const;

/**
 * A DynamoDB client with small timeouts and few retries. Build it once per cold start and pass it
 * to `DynamoPageStore`. Uses the client's `requestHandler` options object (the SDK builds its own
 * NodeHttpHandler from it), so no transitive `@smithy/*` package is imported directly.
 */
export function createDynamoClient(options: DynamoClientOptions = {}): DynamoDBClient {
  const local = options.endpoint !== undefined;
  return new DynamoDBClient({
    ...(local ? { endpoint: options.endpoint } : {}),
    // The emulator accepts any signature but the SDK still needs credentials and a region to sign.
    ...(local ? { credentials: { accessKeyId: "local", secretAccessKey: "local" } } : {}),
    ...(options.region !== undefined ? { region: options.region } : local ? { region: "us-east-1" } : {}),
    maxAttempts: options.maxAttempts ?? DYNAMO_CLIENT_DEFAULTS.maxAttempts,
    requestHandler: {
      connectionTimeout: options.connectTimeoutMs ?? DYNAMO_CLIENT_DEFAULTS.connectTimeoutMs,
      requestTimeout: options.requestTimeoutMs ?? DYNAMO_CLIENT_DEFAULTS.requestTimeoutMs,
      // Without this a breached requestTimeout is only a warning and the call keeps waiting.
      throwOnRequestTimeout: true,
    },
  });
}
