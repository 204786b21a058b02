/**
 * The render function in the template: its size and architecture, the same network as the fetch
 * function, the configuration it shares with it, and IAM: only the fetch function may invoke it,
 * and it may do nothing but log and attach to the VPC.
 */
import { describe, expect, it } from "vitest";
import { RENDER_FUNCTION_MEMORY_MB } from "../../infra/webgate-stack";
import { ENV } from "../../shared/config";
import { resourcesOf, synth, type Props } from "./synth";

const dev = synth("dev");
const fns = resourcesOf(dev, "AWS::Lambda::Function").filter((f) => f.props.Environment?.Variables?.POWERTOOLS_SERVICE_NAME);
const byService = (name: string) => fns.find((f) => f.props.Environment.Variables.POWERTOOLS_SERVICE_NAME === name)!;
const fetchFn = byService("webgate-fetch");
const mcpFn = byService("webgate-mcp");
const render = byService("webgate-render");
const policies = resourcesOf(dev, "AWS::IAM::Policy");
const roleOf = (fn: { props: Props }) => fn.props.Role["Fn::GetAtt"][0] as string;
const statementsOfRole = (roleId: string) =>
  policies
    .filter((p) => JSON.stringify(p.props.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((p) => p.props.PolicyDocument.Statement as Array<{ Sid?: string; Action: string | string[]; Resource: unknown }>);
const actions = (a: string | string[]) => (Array.isArray(a) ? a : [a]);

describe("render function", () => {
  it("has 2 GB, x86_64 (the Chromium package's build), and the fetch function's timeout, subnets and security group", () => {
    expect(render.props).toMatchObject({ MemorySize: RENDER_FUNCTION_MEMORY_MB, Architectures: ["x86_64"], Runtime: "nodejs22.x", Timeout: fetchFn.props.Timeout });
    expect(RENDER_FUNCTION_MEMORY_MB).toBe(2_048);
    expect(render.props.VpcConfig).toEqual(fetchFn.props.VpcConfig);
    expect(render.props.ReservedConcurrentExecutions).toBe(fetchFn.props.ReservedConcurrentExecutions);
  });

  it("gets the fetch function's policy and limits, one page per instance, and no table or secret", () => {
    const env = render.props.Environment.Variables;
    for (const name of [ENV.FETCH_TIMEOUT_MS, ENV.MAX_RESPONSE_BYTES, ENV.MAX_REDIRECTS, ENV.ALLOWED_DOMAINS, ENV.BLOCKED_DOMAINS]) {
      expect(env[name], name).toEqual(fetchFn.props.Environment.Variables[name]);
    }
    expect(env[ENV.RENDER_CONCURRENCY]).toBe("1");
    expect(env[ENV.TABLE_NAME]).toBeUndefined();
    expect(env[ENV.PROVIDER_SECRET_ARN]).toBeUndefined();
    expect(env[ENV.ALLOW_LOCALHOST]).toBeUndefined();
  });

  it("is named to the fetch and MCP functions, which alone may invoke it", () => {
    const renderId = render.id;
    expect(fetchFn.props.Environment.Variables[ENV.RENDER_FUNCTION_NAME]).toEqual({ Ref: renderId });
    const invokers = policies.flatMap((p) =>
      (p.props.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>)
        .filter((s) => actions(s.Action).some((a) => a.startsWith("lambda:")))
        .map((s) => ({ roles: p.props.Roles, statement: s })),
    );
    expect(invokers).toHaveLength(2);
    expect(invokers.map((i) => i.roles).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      [[{ Ref: roleOf(fetchFn) }], [{ Ref: roleOf(mcpFn) }]].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
    for (const invoker of invokers) {
      expect(actions(invoker.statement.Action)).toEqual(["lambda:InvokeFunction"]);
      expect(invoker.statement).toMatchObject({ Sid: "InvokeRenderFunction", Resource: { "Fn::GetAtt": [renderId, "Arn"] } });
    }
    // No resource policy opens it to anyone else.
    expect(resourcesOf(dev, "AWS::Lambda::Permission").filter((p) => JSON.stringify(p.props.FunctionName).includes(renderId))).toEqual([]);
  });

  it("may only log to its own group and attach to the VPC", () => {
    const st = statementsOfRole(roleOf(render));
    expect(st.map((s) => s.Sid).sort()).toEqual(["NoNetworkInterfacesFromFunctionCode", "OwnLogGroup", "VpcNetworkInterfaces"]);
  });
});
