/**
 * The /mcp function and route in the synthesized stack: one function for both tools, holding
 * only the page table and the provider secret, behind the same key and usage plan as the REST
 * routes.
 */
import { describe, expect, it } from "vitest";
import { PAGE_TABLE_ITEM_ACTIONS } from "../../infra/constructs/page-table";
import { ENV } from "../../shared/config";
import { resourcesOf, synth, type Synthesized } from "./synth";

const dev = synth("dev");
const ref = (id: string) => ({ Ref: id });
const idOf = (s: Synthesized, type: string) => resourcesOf(s, type)[0]!.id;
const byService = (s: Synthesized, name: string) =>
  resourcesOf(s, "AWS::Lambda::Function").find((f) => f.props.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === name)!;

describe("the MCP function", () => {
  const mcp = byService(dev, "webgate-mcp");
  const fetch = byService(dev, "webgate-fetch");
  const search = byService(dev, "webgate-search");

  it("exists with the fetch function's sizes, Node.js 22 on arm64 in the VPC", () => {
    expect(mcp).toBeDefined();
    expect(mcp.props).toMatchObject({ Runtime: "nodejs22.x", Architectures: ["arm64"], Timeout: fetch.props.Timeout, MemorySize: fetch.props.MemorySize });
    expect(mcp.props.VpcConfig).toEqual(fetch.props.VpcConfig);
  });

  it("gets both the /fetch and the /search configuration, and never the loopback switch", () => {
    const vars = mcp.props.Environment.Variables as Record<string, unknown>;
    for (const [name, value] of Object.entries(fetch.props.Environment.Variables as Record<string, unknown>)) {
      if (name !== "POWERTOOLS_SERVICE_NAME") expect(vars[name], name).toEqual(value);
    }
    expect(vars[ENV.PROVIDER_SECRET_ARN]).toEqual(search.props.Environment.Variables[ENV.PROVIDER_SECRET_ARN]);
    expect(vars[ENV.ALLOW_LOCALHOST]).toBeUndefined();
  });

  it("may use the page table's items, read the provider secret and invoke the render function, and nothing else", () => {
    const roleId = mcp.props.Role["Fn::GetAtt"][0] as string;
    const policy = resourcesOf(dev, "AWS::IAM::Policy").find((p) => JSON.stringify(p.props.Roles) === JSON.stringify([ref(roleId)]))!;
    const statements = policy.props.PolicyDocument.Statement as Array<{ Sid?: string; Action: string | string[]; Resource: unknown }>;
    const granted = statements.filter((s) => s.Sid === undefined);
    expect(granted).toHaveLength(2);
    const table = granted.find((s) => JSON.stringify(s.Resource).includes(idOf(dev, "AWS::DynamoDB::Table")))!;
    expect([...(table.Action as string[])].sort()).toEqual([...PAGE_TABLE_ITEM_ACTIONS].sort());
    expect(table.Resource).toEqual({ "Fn::GetAtt": [idOf(dev, "AWS::DynamoDB::Table"), "Arn"] });
    const secret = granted.find((s) => s !== table)!;
    expect(secret).toMatchObject({ Action: "secretsmanager:GetSecretValue", Resource: ref(idOf(dev, "AWS::SecretsManager::Secret")) });
    expect(statements.map((s) => s.Sid).filter(Boolean).sort()).toEqual(["InvokeRenderFunction", "NoNetworkInterfacesFromFunctionCode", "OwnLogGroup", "VpcNetworkInterfaces"]);
    const role = resourcesOf(dev, "AWS::IAM::Role").find((r) => r.id === roleId)!;
    expect(role.props.ManagedPolicyArns).toBeUndefined();
  });
});

describe("the /mcp route", () => {
  const resourcePaths = Object.fromEntries(resourcesOf(dev, "AWS::ApiGateway::Resource").map((r) => [r.id, r.props.PathPart as string]));
  const methods = resourcesOf(dev, "AWS::ApiGateway::Method").filter((m) => resourcePaths[m.props.ResourceId.Ref] === "mcp");
  const mcpFunctionId = byService(dev, "webgate-mcp").id;

  it("sends POST, GET and DELETE to the MCP function (which answers 405 to the last two), each with the API key", () => {
    expect(methods.map((m) => m.props.HttpMethod as string).sort()).toEqual(["DELETE", "GET", "POST"]);
    for (const m of methods) {
      expect(m.props.ApiKeyRequired).toBe(true);
      expect(m.props.Integration.Type).toBe("AWS_PROXY");
      expect(JSON.stringify(m.props.Integration.Uri)).toContain(mcpFunctionId);
      // No body model: the function answers JSON-RPC faults itself.
      expect(m.props.RequestModels).toBeUndefined();
    }
  });

  it("is covered by the same usage plan as the REST routes (the plan holds the stage)", () => {
    const [plan] = resourcesOf(dev, "AWS::ApiGateway::UsagePlan");
    const stageId = idOf(dev, "AWS::ApiGateway::Stage");
    expect(plan!.props.ApiStages).toEqual([expect.objectContaining({ Stage: ref(stageId) })]);
    const permissions = resourcesOf(dev, "AWS::Lambda::Permission").filter((p) => JSON.stringify(p.props.FunctionName).includes(mcpFunctionId));
    expect(permissions.map((p) => p.props.Principal)).toEqual(expect.arrayContaining(["apigateway.amazonaws.com"]));
    for (const p of permissions) expect(JSON.stringify(p.props.SourceArn)).toMatch(/\/mcp"/);
  });
});
