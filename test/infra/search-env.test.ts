/**
 * The search settings of cdk.json reach the search function as the runtime's own variables
 * (the ENV constants), so the deployed function reads what the environment table says.
 */
import { describe, expect, it } from "vitest";
import { ENV, loadConfig } from "../../shared/config";
import { resolveSearchSettings } from "../../shared/search/search-config";
import { CDK_CONTEXT, resourcesOf, synth } from "./synth";

const environments = CDK_CONTEXT.environments as Record<string, Record<string, any>>;

function searchVariables(s: ReturnType<typeof synth>): Record<string, unknown> {
  const fn = resourcesOf(s, "AWS::Lambda::Function").find((f) => f.props.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === "webgate-search")!;
  return fn.props.Environment.Variables as Record<string, unknown>;
}

// One synth (outside the test timeout, as stack.test.ts does): a synth takes seconds.
const dev = environments.dev!;
const variant = { ...environments, dev: { ...dev, search: { ...dev.search, provider: "ollama", order: ["ollama", "anthropic"], anthropicModel: "claude-sonnet-4-5" } } };
const vars = searchVariables(synth("dev", { key: "search-order", environments: variant }));

describe("search settings in the stack", () => {
  it("passes search.order and search.anthropicModel as WEBGATE_SEARCH_ORDER and WEBGATE_ANTHROPIC_MODEL", () => {
    expect(vars[ENV.SEARCH_PROVIDER]).toBe("ollama");
    expect(vars[ENV.SEARCH_ORDER]).toBe("ollama,anthropic");
    expect(vars[ENV.ANTHROPIC_MODEL]).toBe("claude-sonnet-4-5");
    // What the stack sets, the runtime accepts.
    const settings = resolveSearchSettings(loadConfig(Object.fromEntries(Object.entries(vars).filter(([, v]) => typeof v === "string")) as Record<string, string>));
    expect(settings.order).toEqual(["ollama", "anthropic"]);
    expect(settings.anthropicModel).toBe("claude-sonnet-4-5");
  });

  it("cdk.json itself leaves them unset, so the runtime defaults apply", () => {
    for (const env of Object.values(environments)) {
      expect(env.search.order).toBeUndefined();
      expect(env.search.anthropicModel).toBeUndefined();
    }
  });
});
