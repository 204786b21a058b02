/**
 * The Secrets Manager client, created once per cold start by the /search handler.
 */
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";

export interface SecretsManagerClientOptions {
  /** Endpoint override (a loopback stand-in in tests, a VPC endpoint URL in AWS). */
  endpoint?: string;
}

/**
 * Short socket timeouts and one retry: a cold start waiting on Secrets Manager holds a caller's
 * search, so an unreachable endpoint must fail within seconds and let the next request retry.
 */
export function createSecretsManagerClient(options: SecretsManagerClientOptions = {}): SecretsManagerClient {
  return new SecretsManagerClient({
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
  });
}
