import { describe, expect, it } from "vitest";
import { EnvironmentError, resolveEnvironment } from "../../infra/environments";
import { CDK_CONTEXT } from "./synth";

const environments = CDK_CONTEXT.environments as Record<string, Record<string, unknown>>;
const dev = environments.dev!;

/** A copy of dev with one nested value replaced. */
function devWith(pathKeys: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(dev);
  let node: Record<string, unknown> = copy;
  for (const key of pathKeys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[pathKeys.at(-1)!] = value;
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
