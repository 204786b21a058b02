import { describe, expect, it } from "vitest";
import { EnvironmentError, resolveEnvironment, resolveEnvironments } from "../../infra/environments";
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
    [["search", "order"], ["brave", "brave"], /search\.order: must not repeat a provider/],
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
