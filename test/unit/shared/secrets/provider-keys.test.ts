import { describe, expect, it } from "vitest";
import type { WebgateError } from "../../../../shared/errors";
import { assertHeaderSafeKeys, parseProviderSecret, secretLoadError, staticProviderKeys } from "../../../../shared/secrets/provider-keys";

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

describe("the ollama and anthropic keys", () => {
  it("are read from ollama_api_key and anthropic_api_key", () => {
    expect(parseProviderSecret(JSON.stringify({ ollama_api_key: ` ${SECRET}-o `, anthropic_api_key: `${SECRET}-a` }))).toEqual({
      ollamaApiKey: `${SECRET}-o`,
      anthropicApiKey: `${SECRET}-a`,
    });
  });
});

describe("keys that cannot go in a header", () => {
  it.each([
    ["a newline inside", `${SECRET}\nX-Injected: 1`],
    ["a space inside", "sk-ant abc"],
    ["a non-ASCII quote mark", "sk-ant-“abc”"],
    ["a NUL", "sk\u0000ant"],
  ])("refuses %s at load: search_not_configured naming the provider and the secret field", (_label, value) => {
    const error = thrown(() => parseProviderSecret(JSON.stringify({ brave_api_key: "fine-key", anthropic_api_key: value })));
    expect(error.code).toBe("search_not_configured");
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("anthropic");
    expect(error.message).toContain("anthropic_api_key");
    expect(error.message).not.toContain(value.trim());
    expect(error.details.provider).toBe("anthropic");
  });

  it("names the environment variable for local keys", async () => {
    const error = await staticProviderKeys({ ollamaApiKey: "bad key" })
      .get()
      .then(() => undefined, (caught: WebgateError) => caught);
    expect(error?.code).toBe("search_not_configured");
    expect(error?.message).toContain("OLLAMA_API_KEY");
    expect(error?.message).not.toContain("bad key");
  });

  it("accepts every printable ASCII key", () => {
    expect(() => assertHeaderSafeKeys({ braveApiKey: "!~azAZ09-_.+/=", tavilyApiKey: "tvly-x" }, "secret")).not.toThrow();
  });
});
