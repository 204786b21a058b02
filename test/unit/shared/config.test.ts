import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULTS, ENV, loadConfig } from "../../../shared/config";

function problemsOf(env: Record<string, string>, options?: Parameters<typeof loadConfig>[1]): string[] {
  try {
    loadConfig(env, options);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

describe("loadConfig", () => {
  it("uses the documented defaults on an empty environment", () => {
    const config = loadConfig({});
    expect(config.fetch.timeoutMs).toBe(30_000);
    expect(config.fetch.maxResponseBytes).toBe(5_242_880);
    expect(config.fetch.maxRedirects).toBe(5);
    expect(config.fetch.allowedPorts).toEqual([80, 443]);
    expect(config.fetch.allowLocalhost).toBe(false);
    expect(config.store.ttlSeconds).toBe(3_600);
    expect(config.local.port).toBe(DEFAULTS.port);
  });

  it("parses lists, numbers and switches", () => {
    const config = loadConfig({
      [ENV.FETCH_TIMEOUT_MS]: "10000",
      [ENV.ALLOWED_DOMAINS]: "example.com, *.example.org,,",
      [ENV.ALLOW_LOCALHOST]: "true",
      [ENV.ALLOWED_PORTS]: "443,8443",
    });
    expect(config.fetch.timeoutMs).toBe(10_000);
    expect(config.fetch.allowedDomains).toEqual(["example.com", "*.example.org"]);
    expect(config.fetch.allowLocalhost).toBe(true);
    expect(config.fetch.allowedPorts).toEqual([443, 8443]);
  });

  it("reports every invalid variable at once", () => {
    let caught: unknown;
    try {
      loadConfig({ [ENV.FETCH_TIMEOUT_MS]: "soon", [ENV.MAX_REDIRECTS]: "99", [ENV.ALLOW_LOCALHOST]: "yes" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join("\n");
    expect(problems).toContain(ENV.FETCH_TIMEOUT_MS);
    expect(problems).toContain(ENV.MAX_REDIRECTS);
    expect(problems).toContain(ENV.ALLOW_LOCALHOST);
  });

  it("refuses a port list entry outside 1-65535", () => {
    expect(problemsOf({ [ENV.ALLOWED_PORTS]: "443,0" })).toEqual([`${ENV.ALLOWED_PORTS}=443,0: "0" is not a port from 1 to 65535`]);
  });

  it("reports every wrong variable of a bad environment in one error, each with its value", () => {
    // One of each stage that used to throw on its own: the number checks, the guard's list
    // checks, the search checks and the Lambda-only switch.
    let caught: unknown;
    try {
      loadConfig(
        {
          [ENV.MAX_REDIRECTS]: "-5",
          [ENV.FETCH_TIMEOUT_MS]: "1e4",
          [ENV.ALLOWED_PORTS]: "443,0x50",
          [ENV.BLOCKED_DOMAINS]: "ok.example,a..b",
          [ENV.BLOCKED_CIDRS]: "10.0.0.0/33",
          [ENV.SEARXNG_URL]: "http://searx.example.org",
          [ENV.SEARCH_PROVIDER]: "google",
          [ENV.ANTHROPIC_MODEL]: "claude haiku",
          [ENV.BRAVE_API_KEY]: "secret-key-value",
          [ENV.ALLOW_LOCALHOST]: "maybe",
        },
        { lambda: true },
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    expect(error.problems).toEqual([
      `${ENV.FETCH_TIMEOUT_MS}=1e4: must be a whole number from 1000 to 120000`,
      `${ENV.MAX_REDIRECTS}=-5: must be a whole number from 0 to 20`,
      `${ENV.BLOCKED_DOMAINS}=ok.example,a..b: "a..b" is not a host name or *.suffix`,
      `${ENV.ALLOWED_PORTS}=443,0x50: "0x50" is not a port from 1 to 65535`,
      `${ENV.BLOCKED_CIDRS}=10.0.0.0/33: "10.0.0.0/33" is not an address range such as 192.0.2.0/24 or 2001:db8::/32`,
      `${ENV.ALLOW_LOCALHOST}=maybe: must be true or false`,
      `${ENV.SEARCH_PROVIDER}=google: must be one of brave, tavily, searxng, ollama, anthropic`,
      `${ENV.SEARXNG_URL}=http://searx.example.org: plain http is allowed only on a loopback host (127.0.0.1/8, ::1, localhost); use https`.replace("127.0.0.1/8", "127.0.0.0/8"),
      `${ENV.ANTHROPIC_MODEL}="claude haiku": must be a model id such as claude-haiku-4-5 (letters, digits and . _ : @ / -, at most 128)`,
    ]);
    expect(error.message).toContain(`- ${ENV.MAX_REDIRECTS}=-5: must be a whole number from 0 to 20`);
    // A key is never echoed, even when the error is about another variable.
    expect(error.message).not.toContain("secret-key-value");
  });

  it("refuses the local-server switch on the Lambda function, with the other problems", () => {
    expect(problemsOf({ [ENV.ALLOW_LOCALHOST]: "true" }, { lambda: true })).toEqual([
      `${ENV.ALLOW_LOCALHOST}=true: a local-server switch that must not be set on the Lambda function`,
    ]);
    expect(loadConfig({ [ENV.ALLOW_LOCALHOST]: "true" }).fetch.allowLocalhost).toBe(true);
  });

  it("normalizes the guard's lists once, so the policy built from them is the same", () => {
    const config = loadConfig({ [ENV.ALLOWED_DOMAINS]: " Example.COM., *.Bücher.DE,example.com", [ENV.BLOCKED_CIDRS]: "2001:DB8:0::/48" });
    expect(config.fetch.allowedDomains).toEqual(["example.com", "*.xn--bcher-kva.de"]);
    expect(config.fetch.blockedCidrs).toEqual(["2001:db8::/48"]);
  });

  it("treats an empty variable as unset where it always did", () => {
    const config = loadConfig({ [ENV.SEARXNG_URL]: "", [ENV.SEARCH_PROVIDER]: " ", [ENV.ANTHROPIC_MODEL]: "", [ENV.ALLOWED_PORTS]: "" });
    expect(config.search.searxngUrl).toBeUndefined();
    expect(config.search.defaultProvider).toBeUndefined();
    expect(config.search.anthropicModel).toBe(DEFAULTS.anthropicModel);
    expect(config.fetch.allowedPorts).toEqual([]);
  });
});

describe("loadConfig: robots.txt and PDF settings", () => {
  it("respects robots.txt and reads 500 PDF pages by default", () => {
    const config = loadConfig({});
    expect(config.fetch.robots).toBe("respect");
    expect(config.fetch.pdfMaxPages).toBe(500);
  });

  it.each([
    ["ignore", "ignore"],
    [" Respect ", "respect"],
  ])("reads %j as %s", (value, expected) => {
    expect(loadConfig({ [ENV.ROBOTS]: value }).fetch.robots).toBe(expected);
  });

  it.each([
    [ENV.ROBOTS, "obey"],
    [ENV.PDF_MAX_PAGES, "0"],
    [ENV.PDF_MAX_PAGES, "10001"],
    [ENV.PDF_MAX_PAGES, "many"],
  ])("refuses %s=%s", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it("takes a page cap", () => {
    expect(loadConfig({ [ENV.PDF_MAX_PAGES]: "20" }).fetch.pdfMaxPages).toBe(20);
  });
});
