import { describe, expect, it } from "vitest";
import { ConfigError, ENV, loadConfig } from "../../../../shared/config";
import { resolveSearchSettings } from "../../../../shared/search/search-config";

/** The problems loadConfig reports for this environment ([] when it loads). */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

describe("SEARXNG_URL", () => {
  it.each([
    "https://search.example.org",
    "https://search.example.org/searxng/",
    "http://127.0.0.1:8888",
    "http://127.8.9.10/",
    "http://[::1]:8080",
    "http://localhost:8080",
    "http://LOCALHOST:8080",
  ])("accepts %s", (raw) => {
    expect(loadConfig({ [ENV.SEARXNG_URL]: raw }).search.searxngUrl).toBeInstanceOf(URL);
  });

  it.each([
    ["plain http on a public host", "http://search.example.org", "plain http"],
    ["plain http on a private address", "http://10.0.0.5:8080", "plain http"],
    ["plain http on an IPv4-mapped loopback", "http://[::ffff:127.0.0.1]/", "plain http"],
    ["plain http on 0.0.0.0", "http://0.0.0.0:8080", "plain http"],
    ["a localhost look-alike", "http://localhost.example.org", "plain http"],
    ["credentials", "https://user:pw@search.example.org", "user name or password"],
    ["credentials on loopback", "http://user@127.0.0.1:8080", "user name or password"],
    ["another scheme", "ftp://search.example.org", "must use https"],
    ["a relative URL", "search.example.org", "must be an absolute URL"],
  ])("refuses %s", (_label, raw, problem) => {
    const problems = problemsOf({ [ENV.SEARXNG_URL]: raw }).join("\n");
    expect(problems).toContain(problem);
    expect(problems).toContain(`${ENV.SEARXNG_URL}=`);
  });

  it("never shows the user name or password it refuses", () => {
    const problems = problemsOf({ [ENV.SEARXNG_URL]: "https://admin:hunter2@search.example.org/" });
    expect(problems).toEqual([`${ENV.SEARXNG_URL}=https://***@search.example.org/: must not hold a user name or password`]);
  });
});

describe("resolveSearchSettings", () => {
  it("reads local keys, the default provider and endpoints", () => {
    const settings = resolveSearchSettings(
      loadConfig({ [ENV.BRAVE_API_KEY]: "k1", [ENV.SEARCH_PROVIDER]: "Tavily", [ENV.SEARXNG_URL]: "http://127.0.0.1:9/" }),
    );
    expect(settings.braveApiKey).toBe("k1");
    expect(settings.defaultProvider).toBe("tavily");
    expect(settings.searxngUrl?.href).toBe("http://127.0.0.1:9/");
    expect(settings.braveEndpoint.href).toBe("https://api.search.brave.com/res/v1/web/search");
  });

  it("ignores environment keys when a secret ARN is set (keys come from the secret only)", () => {
    const settings = resolveSearchSettings(
      loadConfig({ [ENV.BRAVE_API_KEY]: "k1", [ENV.PROVIDER_SECRET_ARN]: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:x" }),
    );
    expect(settings.braveApiKey).toBeUndefined();
    expect(settings.secretArn).toContain("arn:aws");
  });

  it("lists every problem in one ConfigError", () => {
    let caught: unknown;
    try {
      resolveSearchSettings(loadConfig({ [ENV.SEARCH_PROVIDER]: "google", [ENV.SEARXNG_URL]: "http://searx.example.org", [ENV.BRAVE_ENDPOINT]: "nope" }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join("\n");
    expect(problems).toContain(ENV.SEARCH_PROVIDER);
    expect(problems).toContain(ENV.SEARXNG_URL);
    expect(problems).toContain(ENV.BRAVE_ENDPOINT);
  });
});

describe("the ollama and anthropic settings, WEBGATE_SEARCH_ORDER", () => {
  it("defaults: public endpoints, a small model, every provider in the default order", () => {
    const settings = resolveSearchSettings(loadConfig({ [ENV.ANTHROPIC_API_KEY]: "a", [ENV.OLLAMA_API_KEY]: "o" }));
    expect(settings.anthropicEndpoint.href).toBe("https://api.anthropic.com/");
    expect(settings.ollamaEndpoint.href).toBe("https://ollama.com/");
    expect(settings.anthropicModel).toBe("claude-haiku-4-5");
    expect(settings.order).toEqual(["brave", "tavily", "searxng", "ollama", "anthropic"]);
    expect(settings.anthropicApiKey).toBe("a");
    expect(settings.ollamaApiKey).toBe("o");
  });

  it("reads the overrides; the order in any case and with spaces", () => {
    const settings = resolveSearchSettings(
      loadConfig({
        [ENV.ANTHROPIC_ENDPOINT]: "https://proxy.example/anthropic/",
        [ENV.OLLAMA_ENDPOINT]: "http://127.0.0.1:11434",
        [ENV.ANTHROPIC_MODEL]: "claude-sonnet-4-5@20250929",
        [ENV.SEARCH_ORDER]: " Anthropic , ollama,brave ",
      }),
    );
    expect(settings.anthropicEndpoint.href).toBe("https://proxy.example/anthropic/");
    expect(settings.ollamaEndpoint.href).toBe("http://127.0.0.1:11434/");
    expect(settings.anthropicModel).toBe("claude-sonnet-4-5@20250929");
    expect(settings.order).toEqual(["anthropic", "ollama", "brave"]);
  });

  it("ignores the local anthropic and ollama keys when a secret ARN is set", () => {
    const settings = resolveSearchSettings(
      loadConfig({ [ENV.ANTHROPIC_API_KEY]: "a", [ENV.OLLAMA_API_KEY]: "o", [ENV.PROVIDER_SECRET_ARN]: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:x" }),
    );
    expect(settings.anthropicApiKey).toBeUndefined();
    expect(settings.ollamaApiKey).toBeUndefined();
  });

  it.each([
    ["an unknown provider", "brave,google", '"google" is not a provider'],
    ["a provider twice", "brave,tavily,Brave", "brave is listed twice"],
    ["an empty list", " , ", "at least one provider"],
  ])("refuses an order with %s at start-up", (_label, order, problem) => {
    const problems = problemsOf({ [ENV.SEARCH_ORDER]: order });
    expect(problems.join("\n")).toContain(problem);
    expect(problems.join("\n")).toContain(`${ENV.SEARCH_ORDER}=`);
  });

  it("lists bad endpoints and a bad model with the other problems", () => {
    let caught: unknown;
    try {
      resolveSearchSettings(
        loadConfig({ [ENV.ANTHROPIC_ENDPOINT]: "api.anthropic.com", [ENV.OLLAMA_ENDPOINT]: "https://u:p@ollama.com", [ENV.ANTHROPIC_MODEL]: "claude haiku\n" }),
      );
    } catch (error) {
      caught = error;
    }
    const problems = (caught as ConfigError).problems.join("\n");
    expect(problems).toContain(ENV.ANTHROPIC_ENDPOINT);
    expect(problems).toContain(ENV.OLLAMA_ENDPOINT);
    expect(problems).toContain(ENV.ANTHROPIC_MODEL);
  });
});
