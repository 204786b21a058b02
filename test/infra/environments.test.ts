import { describe, expect, it } from "vitest";
import { loadConfig } from "../../shared/config";
import { EnvironmentError, fetchFunctionEnvironment, resolveEnvironment, resolveEnvironments, searchFunctionEnvironment } from "../../infra/environments";
import { CDK_CONTEXT } from "./synth";

const environments = CDK_CONTEXT.environments as Record<string, Record<string, unknown>>;
const dev = environments.dev!;
const prod = environments.prod!;

/** A copy of dev (or another environment) with one nested value replaced (undefined: removed). */
function devWith(pathKeys: string[], value: unknown, base: Record<string, unknown> = dev): Record<string, unknown> {
  const copy = structuredClone(base);
  let node: Record<string, unknown> = copy;
  for (const key of pathKeys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  if (value === undefined) delete node[pathKeys.at(-1)!];
  else node[pathKeys.at(-1)!] = value;
  return copy;
}

describe("resolveEnvironment", () => {
  it("accepts every environment in cdk.json", () => {
    expect(Object.keys(environments).sort()).toEqual(["dev", "prod"]);
    expect(resolveEnvironment("dev", environments).settings.retainData).toBe(false);
    expect(resolveEnvironment("prod", environments).settings.retainData).toBe(true);
  });

  it("refuses a missing env with the list of known ones", () => {
    expect(() => resolveEnvironment(undefined, environments)).toThrow(EnvironmentError);
    expect(() => resolveEnvironment(undefined, environments)).toThrow(/pass -c env=<name> \(one of: dev, prod\)/);
    expect(() => resolveEnvironment("  ", environments)).toThrow(/No environment selected/);
  });

  it("refuses an unknown env", () => {
    expect(() => resolveEnvironment("staging", environments)).toThrow(/Unknown environment "staging": expected one of dev, prod/);
  });

  it("refuses a missing or malformed environments table", () => {
    expect(() => resolveEnvironment("dev", undefined)).toThrow(/"environments" must map/);
    expect(() => resolveEnvironment("dev", { "Bad Name": dev })).toThrow(/"environments" must map/);
  });

  it.each([
    [["fetch", "fetchTimeoutMs"], 26_000, /fetch\.fetchTimeoutMs: fetchTimeoutMs \+ 3000 ms of post-processing must fit in fetch\.timeoutS \(28 s\)/],
    [["fetch", "timeoutS"], 29, /fetch\.timeoutS/],
    [["vpcCidr"], "8.8.0.0/16", /vpcCidr: must be a private IPv4 CIDR/],
    [["natGateways"], 3, /natGateways/],
    [["logRetentionDays"], 10, /logRetentionDays: must be one of/],
    [["api", "quotaPeriod"], "YEAR", /api\.quotaPeriod/],
    [["api", "burstLimit"], 1_000, /api: a usage plan's rate and burst cannot exceed the stage's/],
    [["search", "provider"], "searxng", /search\.searxngUrl: is required when provider is searxng/],
    [["search", "searxngUrl"], "http://searx.example", /search\.searxngUrl/],
    [["search", "order"], ["brave", "google"], /search\.order/],
    [["search", "order"], ["brave", "brave"], /search\.order: brave is listed twice/],
    [["search", "anthropicModel"], "claude haiku", /search\.anthropicModel: must be a model id/],
    [["fetch", "allowLocalhost"], true, /fetch: Unrecognized key/],
    [["alarms", "topicArn"], "arn:aws:sqs:eu-west-1:123456789012:q", /alarms\.topicArn: must be an SNS topic ARN/],
  ])("refuses %j = %j", (keys, value, message) => {
    const table = { ...environments, dev: devWith(keys, value) };
    expect(() => resolveEnvironment("dev", table)).toThrow(message);
  });

  it.each([
    [["alarms", "email"], undefined, /environments\.prod\.alarms: a retained environment needs alarms\.topicArn or alarms\.email/],
    [["account"], undefined, /environments\.prod\.account: is required for a retained environment/],
    [["region"], undefined, /environments\.prod\.region: is required for a retained environment/],
    [["terminationProtection"], false, /environments\.prod\.terminationProtection: must be true for a retained environment/],
    [["availabilityZones"], undefined, /environments\.prod\.availabilityZones: is required with a region/],
    [["availabilityZones"], ["eu-west-1a", "us-east-1b"], /availabilityZones\.1: must be a zone of eu-west-1/],
    [["availabilityZones"], ["eu-west-1a", "eu-west-1a"], /availabilityZones: must be two different zones/],
    [["account"], "12345", /account: must be a 12-digit AWS account id/],
    [["alarms", "topicArn"], "arn:aws:sns:eu-west-1:123456789012:oncall", /alarms\.email: give topicArn .* or email .*, not both/],
    [["alarms", "email"], "not-an-address", /alarms\.email/],
    [["waf", "ipRateLimitPer5Min"], 5, /waf\.ipRateLimitPer5Min/],
    [["dnsFirewall", "lists"], [], /dnsFirewall: Unrecognized key/],
  ])("refuses prod %j = %j", (keys, value, message) => {
    const table = { ...environments, prod: devWith(keys, value, prod) };
    expect(() => resolveEnvironment("prod", table)).toThrow(message);
  });

  it("refuses two environments owning the API Gateway account role in one account and region", () => {
    const staging = devWith(["vpcCidr"], "10.40.0.0/16", prod);
    expect(() => resolveEnvironment("prod", { ...environments, staging })).toThrow(
      /environments\.prod\.apiGatewayAccountRole and environments\.staging\.apiGatewayAccountRole are both true for account 123456789012 in eu-west-1/,
    );
    // Another region of the same account has a setting of its own; off in one is fine too.
    const otherRegion = { ...devWith(["region"], "us-east-1", prod), availabilityZones: ["us-east-1a", "us-east-1b"] };
    expect(resolveEnvironment("prod", { ...environments, staging: otherRegion }).name).toBe("prod");
    expect(resolveEnvironment("prod", { ...environments, staging: devWith(["apiGatewayAccountRole"], false, staging) }).name).toBe("prod");
  });

  it("turns WAF and DNS Firewall on by default exactly where data is retained", () => {
    const bare = (base: Record<string, unknown>) => {
      const copy = structuredClone(base);
      delete copy.waf;
      delete copy.dnsFirewall;
      return copy;
    };
    const table = { dev: bare(dev), prod: bare(prod) };
    expect(resolveEnvironment("dev", table).settings).toMatchObject({ waf: { enabled: false }, dnsFirewall: { enabled: false } });
    expect(resolveEnvironment("prod", table).settings).toMatchObject({ waf: { enabled: true, ipRateLimitPer5Min: 1500 }, dnsFirewall: { enabled: true } });
  });

  it("selects every environment when none is given (npm run synth), or the one given", () => {
    expect(resolveEnvironments(undefined, environments).map((e) => e.name)).toEqual(["dev", "prod"]);
    expect(resolveEnvironments("prod", environments).map((e) => e.name)).toEqual(["prod"]);
    expect(() => resolveEnvironments("staging", environments)).toThrow(/Unknown environment "staging"/);
  });

  it("lists every problem at once", () => {
    const broken = devWith(["natGateways"], 0);
    (broken.fetch as Record<string, unknown>).memoryMb = 64;
    const err = (() => {
      try {
        resolveEnvironment("dev", { dev: broken });
      } catch (e) {
        return e as Error;
      }
      throw new Error("expected a failure");
    })();
    expect(err.message).toContain("environments.dev.natGateways");
    expect(err.message).toContain("environments.dev.fetch.memoryMb");
  });
});

/** Whether the function accepts at cold start what this variable is set to. */
function runtimeAccepts(variable: string, value: string): boolean {
  try {
    loadConfig({ [variable]: value });
    return true;
  } catch {
    return false;
  }
}

describe("synth and the runtime agree on every value", () => {
  // [settings path, value in cdk.json, the variable the stack sets, synth accepts, runtime accepts]
  const rows: [string[], unknown, string, boolean, boolean][] = [
    [["fetch", "fetchTimeoutMs"], 999, "WEBGATE_FETCH_TIMEOUT_MS", false, false],
    [["fetch", "fetchTimeoutMs"], 1_000, "WEBGATE_FETCH_TIMEOUT_MS", true, true],
    [["fetch", "fetchTimeoutMs"], 1_500.5, "WEBGATE_FETCH_TIMEOUT_MS", false, false],
    [["fetch", "maxRedirects"], -5, "WEBGATE_MAX_REDIRECTS", false, false],
    [["fetch", "maxRedirects"], 0, "WEBGATE_MAX_REDIRECTS", true, true],
    [["fetch", "maxRedirects"], 20, "WEBGATE_MAX_REDIRECTS", true, true],
    [["fetch", "maxRedirects"], 21, "WEBGATE_MAX_REDIRECTS", false, false],
    [["fetch", "maxResponseBytes"], 1_023, "WEBGATE_MAX_RESPONSE_BYTES", false, false],
    [["fetch", "cacheTtlS"], 59, "WEBGATE_CACHE_TTL_S", false, false],
    [["fetch", "cacheTtlS"], 604_800, "WEBGATE_CACHE_TTL_S", true, true],
    // `a..b` passed synth and stopped the cold start before the two shared one schema.
    [["fetch", "allowedDomains"], ["a..b"], "WEBGATE_ALLOWED_DOMAINS", false, false],
    [["fetch", "allowedDomains"], ["example.com", "*.Example.org."], "WEBGATE_ALLOWED_DOMAINS", true, true],
    [["fetch", "allowedDomains"], ["bücher.de"], "WEBGATE_ALLOWED_DOMAINS", true, true],
    [["fetch", "blockedDomains"], ["1.2.3.4"], "WEBGATE_BLOCKED_DOMAINS", false, false],
    [["fetch", "blockedDomains"], ["-bad.com"], "WEBGATE_BLOCKED_DOMAINS", false, false],
    [["fetch", "blockedDomains"], ["exa mple.com"], "WEBGATE_BLOCKED_DOMAINS", false, false],
    [["search", "provider"], "google", "WEBGATE_SEARCH_PROVIDER", false, false],
    [["search", "provider"], "Tavily", "WEBGATE_SEARCH_PROVIDER", true, true],
    [["search", "searxngUrl"], "https://searx.example/", "SEARXNG_URL", true, true],
    [["search", "searxngUrl"], "https://u:p@searx.example/", "SEARXNG_URL", false, false],
    [["search", "searxngUrl"], "searx.example", "SEARXNG_URL", false, false],
    // The one deliberate difference, in the safe direction: plain http to a loopback SearXNG is
    // for `npm start`; a Lambda function has no such neighbour.
    [["search", "searxngUrl"], "http://127.0.0.1:8888/", "SEARXNG_URL", false, true],
    [["search", "order"], ["brave", "google"], "WEBGATE_SEARCH_ORDER", false, false],
    [["search", "order"], ["brave", "Brave"], "WEBGATE_SEARCH_ORDER", false, false],
    [["search", "order"], ["ANTHROPIC", "tavily"], "WEBGATE_SEARCH_ORDER", true, true],
    [["search", "anthropicModel"], "claude haiku", "WEBGATE_ANTHROPIC_MODEL", false, false],
    [["search", "anthropicModel"], "claude-sonnet-4-5@20250929", "WEBGATE_ANTHROPIC_MODEL", true, true],
  ];

  it.each(rows)("%j = %j (%s): synth %s, runtime %s", (keys, value, variable, synthOk, runtimeOk) => {
    const rendered = Array.isArray(value) ? value.join(",") : String(value);
    expect(runtimeAccepts(variable, rendered)).toBe(runtimeOk);
    let settings: ReturnType<typeof resolveEnvironment>["settings"] | undefined;
    try {
      settings = resolveEnvironment("dev", { ...environments, dev: devWith(keys, value) }).settings;
    } catch (error) {
      expect(error).toBeInstanceOf(EnvironmentError);
    }
    expect(settings !== undefined).toBe(synthOk);
    // What synth accepts, the runtime accepts: the variables exactly as the stack renders them.
    if (settings !== undefined) {
      const env = { ...fetchFunctionEnvironment(settings, "webgate-pages"), ...searchFunctionEnvironment(settings, "arn:aws:secretsmanager:eu-west-1:123456789012:secret:x") };
      expect(env[variable], variable).toBeDefined();
      expect(() => loadConfig(env)).not.toThrow();
    }
  });

  it("renders every environment in cdk.json into variables the runtime loads", () => {
    for (const name of Object.keys(environments)) {
      const { settings } = resolveEnvironment(name, environments);
      const config = loadConfig({ ...fetchFunctionEnvironment(settings, "t"), ...searchFunctionEnvironment(settings, "arn:x") }, { lambda: true });
      expect(config.fetch.timeoutMs).toBe(settings.fetch.fetchTimeoutMs);
      expect(config.fetch.maxRedirects).toBe(settings.fetch.maxRedirects);
      expect(config.store.ttlSeconds).toBe(settings.fetch.cacheTtlS);
    }
  });
});
