import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULTS, ENV, loadConfig } from "../../../shared/config";

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
    expect(() => loadConfig({ [ENV.ALLOWED_PORTS]: "443,0" })).toThrow(ConfigError);
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
