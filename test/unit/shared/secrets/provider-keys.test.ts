import { describe, expect, it } from "vitest";
import type { WebgateError } from "../../../../shared/errors";
import { parseProviderSecret, secretLoadError } from "../../../../shared/secrets/provider-keys";

const SECRET = "sk-very-secret-value-123";

function thrown(fn: () => unknown): WebgateError {
  try {
    fn();
  } catch (error) {
    return error as WebgateError;
  }
  throw new Error("did not throw");
}

describe("parseProviderSecret", () => {
  it("reads both keys, trims them and drops empty ones", () => {
    expect(parseProviderSecret(JSON.stringify({ brave_api_key: ` ${SECRET} `, tavily_api_key: "", other: 1 }))).toEqual({ braveApiKey: SECRET });
    expect(parseProviderSecret(JSON.stringify({ tavily_api_key: SECRET }))).toEqual({ tavilyApiKey: SECRET });
  });

  it.each([
    ["not JSON", `{"brave_api_key": "${SECRET}"`],
    ["a bare string", JSON.stringify(SECRET)],
    ["a key of the wrong type", JSON.stringify({ brave_api_key: 12 })],
    ["no SecretString", undefined],
  ])("refuses %s with search_not_configured, never quoting the value", (_label, value) => {
    const error = thrown(() => parseProviderSecret(value));
    expect(error.code).toBe("search_not_configured");
    expect(error.message).not.toContain(SECRET);
    // A JSON.parse error message quotes its input: it must not travel as the cause either.
    expect(error.cause).toBeUndefined();
  });
});

describe("secretLoadError", () => {
  const arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:webgate-providers-AbCdEf";

  it.each(["ResourceNotFoundException", "AccessDeniedException", "DecryptionFailure"])("%s is a configuration error", (name) => {
    const error = secretLoadError(Object.assign(new Error(`Secrets Manager can't find ${arn}`), { name }));
    expect(error.code).toBe("search_not_configured");
    expect(error.message).toContain(name);
    expect(error.message).not.toContain("123456789012");
  });

  it.each(["TimeoutError", "ECONNREFUSED", "ThrottlingException", "InternalServiceError"])("%s is a retryable provider_error", (name) => {
    const error = secretLoadError(Object.assign(new Error(`failed for ${arn}`), { name }));
    expect(error.code).toBe("provider_error");
    expect(error.retryable).toBe(true);
    expect(error.message).not.toContain(arn);
  });
});
