import { createRequire } from "node:module";
import * as path from "node:path";
import { CfnGuardValidator } from "@cdklabs/cdk-validator-cfnguard";
import { ERROR_TABLE } from "../../shared/errors";
import { App, Stack, Validations } from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as sns from "aws-cdk-lib/aws-sns";
import { Match } from "aws-cdk-lib/assertions";
import { AwsSolutionsChecks } from "cdk-nag";
import { describe, expect, it } from "vitest";
import { FIELD_LIMITS } from "../../infra/constructs/api";
import { PAGE_TABLE_ITEM_ACTIONS } from "../../infra/constructs/page-table";
import { ENV } from "../../shared/config";
import { METRICS_NAMESPACE } from "../../shared/observability/metric-names";
import { resourcesOf, synth, type Props, type Synthesized } from "./synth";

const resources = resourcesOf;

// The full policy checks of a real synth (cdk-nag and cfn-guard) in this file only.
const dev = synth("dev", undefined, { policies: "all" });
const prod = synth("prod", undefined, { policies: "all" });

/** The API functions (not CDK's own custom-resource provider). */
function apiFunctions(s: Synthesized) {
  const fns = resources(s, "AWS::Lambda::Function").filter((f) => f.props.Environment?.Variables?.POWERTOOLS_SERVICE_NAME);
  const byService = (name: string) => fns.find((f) => f.props.Environment.Variables.POWERTOOLS_SERVICE_NAME === name)!;
  return { all: fns, fetch: byService("webgate-fetch"), search: byService("webgate-search"), render: byService("webgate-render") };
}

const ref = (id: string) => ({ Ref: id });
const idOf = (s: Synthesized, type: string) => resources(s, type)[0]!.id;

describe("functions", () => {
  const { all, fetch, search } = apiFunctions(dev);
  const sgId = resources(dev, "AWS::EC2::SecurityGroup").find((g) => String(g.props.GroupDescription).startsWith("webgate functions"))!.id;

  it("run Node.js 22 on arm64 (render: x86_64, its Chromium's only build) inside the VPC's function subnets with the locked-down security group", () => {
    expect(all).toHaveLength(4);
    const functionSubnets = resources(dev, "AWS::EC2::Subnet")
      .filter((s) => JSON.stringify(s.props.Tags).includes('"Value":"functions"'))
      .map((s) => ref(s.id));
    for (const fn of all) {
      const architecture = fn.props.Environment.Variables.POWERTOOLS_SERVICE_NAME === "webgate-render" ? "x86_64" : "arm64";
      expect(fn.props).toMatchObject({ Runtime: "nodejs22.x", Architectures: [architecture], Handler: "index.handler" });
      expect(fn.props.VpcConfig.SecurityGroupIds).toEqual([{ "Fn::GetAtt": [sgId, "GroupId"] }]);
      expect(fn.props.VpcConfig.SubnetIds).toEqual(functionSubnets);
      expect(fn.props.Environment.Variables).toMatchObject({ POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE, NODE_OPTIONS: "--enable-source-maps" });
      expect(fn.props.Environment.Variables[ENV.ALLOW_LOCALHOST]).toBeUndefined();
    }
  });

  it("fit the fetch time budget inside API Gateway's 29 s and take per-environment sizes", () => {
    expect(fetch.props).toMatchObject({ Timeout: 28, MemorySize: 1024, ReservedConcurrentExecutions: 10 });
    expect(Number(fetch.props.Environment.Variables[ENV.FETCH_TIMEOUT_MS])).toBe(25_000);
    expect(search.props).toMatchObject({ Timeout: 25, MemorySize: 512, ReservedConcurrentExecutions: 5 });
    const prodFetch = apiFunctions(prod).fetch;
    expect(prodFetch.props).toMatchObject({ MemorySize: 1536, ReservedConcurrentExecutions: 50 });
  });

  it("get the runtime configuration under the names shared/config.ts reads", () => {
    const tableId = idOf(dev, "AWS::DynamoDB::Table");
    expect(fetch.props.Environment.Variables).toMatchObject({
      [ENV.TABLE_NAME]: ref(tableId),
      [ENV.MAX_RESPONSE_BYTES]: "5242880",
      [ENV.MAX_REDIRECTS]: "5",
      [ENV.CACHE_TTL_S]: "3600",
      [ENV.ALLOWED_DOMAINS]: "",
      [ENV.BLOCKED_DOMAINS]: "",
      [ENV.ROBOTS]: "respect",
      [ENV.PDF_MAX_PAGES]: "500",
      POWERTOOLS_SERVICE_NAME: "webgate-fetch",
    });
    expect(search.props.Environment.Variables).toEqual(
      expect.objectContaining({ [ENV.PROVIDER_SECRET_ARN]: ref(idOf(dev, "AWS::SecretsManager::Secret")), POWERTOOLS_SERVICE_NAME: "webgate-search" }),
    );
    expect(fetch.props.Environment.Variables[ENV.PROVIDER_SECRET_ARN]).toBeUndefined();
    expect(search.props.Environment.Variables[ENV.TABLE_NAME]).toBeUndefined();
  });

  it("log to their own log groups with the environment's retention", () => {
    for (const [s, days] of [[dev, 14], [prod, 90]] as const) {
      const groups = resources(s, "AWS::Logs::LogGroup");
      for (const fn of apiFunctions(s).all) {
        const group = groups.find((g) => g.id === fn.props.LoggingConfig.LogGroup.Ref)!;
        expect(group.props.RetentionInDays).toBe(days);
        expect(fn.props.LoggingConfig.LogFormat).toBe("JSON");
      }
      for (const g of groups) expect(g.props.RetentionInDays).toBe(days);
    }
  });
});

describe("IAM", () => {
  const { fetch, search } = apiFunctions(dev);
  const policies = resources(dev, "AWS::IAM::Policy");
  const policyOf = (fn: { props: Props }) => policies.find((p) => JSON.stringify(p.props.Roles) === JSON.stringify([fn.props.Role["Fn::GetAtt"] ? ref(fn.props.Role["Fn::GetAtt"][0]) : fn.props.Role]))!;
  const statements = (fn: { props: Props }) => policyOf(fn).props.PolicyDocument.Statement as Array<{ Sid?: string; Action: string | string[]; Resource: unknown; Effect: string }>;
  const logGroupArn = (fn: { props: Props }) => ({ "Fn::GetAtt": [fn.props.LoggingConfig.LogGroup.Ref, "Arn"] });
  const eniActions = ["ec2:AssignPrivateIpAddresses", "ec2:CreateNetworkInterface", "ec2:DeleteNetworkInterface", "ec2:DescribeNetworkInterfaces", "ec2:DescribeSubnets", "ec2:UnassignPrivateIpAddresses"];
  const sorted = (a: string | string[]) => [...(Array.isArray(a) ? a : [a])].sort();

  it("lets fetch read and write items of its own table, invoke the render function, and nothing else", () => {
    const st = statements(fetch);
    expect(st).toHaveLength(5);
    expect(st.find((s) => s.Sid === "OwnLogGroup")).toMatchObject({ Effect: "Allow", Action: ["logs:CreateLogStream", "logs:PutLogEvents"], Resource: logGroupArn(fetch) });
    expect(sorted(st.find((s) => s.Sid === "VpcNetworkInterfaces")!.Action)).toEqual(eniActions);
    const table = st.find((s) => s.Sid === undefined && s.Effect === "Allow" && sorted(s.Action).includes("dynamodb:GetItem"))!;
    expect(sorted(table.Action)).toEqual([...PAGE_TABLE_ITEM_ACTIONS].sort());
    expect(table.Resource).toEqual({ "Fn::GetAtt": [idOf(dev, "AWS::DynamoDB::Table"), "Arn"] });
  });

  it("lets search read its own secret's value and nothing else", () => {
    const st = statements(search);
    expect(st).toHaveLength(4);
    expect(st.find((s) => s.Sid === "OwnLogGroup")!.Resource).toEqual(logGroupArn(search));
    const secret = st.find((s) => s.Sid === undefined)!;
    expect(secret).toMatchObject({ Effect: "Allow", Action: "secretsmanager:GetSecretValue", Resource: ref(idOf(dev, "AWS::SecretsManager::Secret")) });
  });

  it("denies the ENI actions to code running in the functions, leaving Lambda's own use (lambda:SourceFunctionArn)", () => {
    for (const fn of [fetch, search]) {
      const deny = statements(fn).find((s) => s.Effect === "Deny") as unknown as { Sid: string; Action: string[]; Resource: unknown; Condition: Record<string, Record<string, unknown>> };
      expect(deny.Sid).toBe("NoNetworkInterfacesFromFunctionCode");
      expect(sorted(deny.Action)).toEqual([...eniActions, "ec2:DetachNetworkInterface"].sort());
      expect(deny.Resource).toBe("*");
      // The condition key is present only on calls made with the credentials Lambda hands to
      // the function's code; the ARN pattern is every function of this account and region.
      expect(Object.keys(deny.Condition)).toEqual(["ArnLike"]);
      expect(JSON.stringify(deny.Condition.ArnLike!["lambda:SourceFunctionArn"])).toMatch(/arn:.*AWS::Partition.*:lambda:.*AWS::Region.*AWS::AccountId.*:function:\*/);
      // The allow for Lambda's service is still there, so the function can attach to the VPC.
      expect(statements(fn).find((s) => s.Sid === "VpcNetworkInterfaces")!.Effect).toBe("Allow");
    }
  });

  it("has no wildcard action anywhere, and Resource * only on the ENI actions", () => {
    for (const p of policies) {
      for (const s of p.props.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown; Effect: string }>) {
        for (const action of sorted(s.Action)) expect(action).not.toMatch(/\*/);
        if (JSON.stringify(s.Resource).includes('"*"')) {
          expect(sorted(s.Action)).toEqual(s.Effect === "Deny" ? [...eniActions, "ec2:DetachNetworkInterface"].sort() : eniActions);
        }
      }
    }
    // The function roles carry no managed policies.
    for (const fn of [fetch, search]) {
      const role = resources(dev, "AWS::IAM::Role").find((r) => r.id === fn.props.Role["Fn::GetAtt"][0])!;
      expect(role.props.ManagedPolicyArns).toBeUndefined();
      expect(role.props.AssumeRolePolicyDocument.Statement).toEqual([expect.objectContaining({ Principal: { Service: "lambda.amazonaws.com" } })]);
    }
  });
});

describe("page table and secret", () => {
  it("is on demand with TTL on expires_at, AWS-managed encryption and pk/sk keys", () => {
    dev.template.hasResourceProperties("AWS::DynamoDB::Table", {
      BillingMode: "PAY_PER_REQUEST",
      TimeToLiveSpecification: { AttributeName: "expires_at", Enabled: true },
      SSESpecification: { SSEEnabled: true },
      KeySchema: [
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ],
    });
    // AWS-managed (not a customer key): no KMS key in the stack.
    expect(resources(dev, "AWS::KMS::Key")).toHaveLength(0);
  });

  it("is deleted with a dev stack and retained by a prod stack", () => {
    dev.template.hasResource("AWS::DynamoDB::Table", { DeletionPolicy: "Delete", UpdateReplacePolicy: "Delete" });
    prod.template.hasResource("AWS::DynamoDB::Table", { DeletionPolicy: "Retain", UpdateReplacePolicy: "Retain" });
  });

  it("creates the secret with the documented shape and no key in it", () => {
    const [secret] = resources(dev, "AWS::SecretsManager::Secret");
    expect(JSON.parse(secret!.props.SecretString as string)).toEqual({ brave_api_key: "", tavily_api_key: "" });
  });
});

describe("API", () => {
  const methods = resources(dev, "AWS::ApiGateway::Method");
  const resourcePaths = Object.fromEntries(resources(dev, "AWS::ApiGateway::Resource").map((r) => [r.id, r.props.PathPart as string]));

  const routeOf = (m: { props: Props }) => `${m.props.HttpMethod} /${resourcePaths[m.props.ResourceId.Ref]}`;

  it("is a regional REST API with POST/GET /fetch, POST /search, /mcp and GET /openapi.json only, no CORS", () => {
    dev.template.hasResourceProperties("AWS::ApiGateway::RestApi", { EndpointConfiguration: { Types: ["REGIONAL"] } });
    expect(methods.map(routeOf).sort()).toEqual(["DELETE /mcp", "GET /fetch", "GET /mcp", "GET /openapi.json", "POST /fetch", "POST /mcp", "POST /search"]);
  });

  it("requires an API key on every method but the OpenAPI document", () => {
    for (const m of methods) expect(m.props.ApiKeyRequired, routeOf(m)).toBe(routeOf(m) !== "GET /openapi.json");
  });

  it("validates request bodies and the GET url parameter", () => {
    const [validator] = resources(dev, "AWS::ApiGateway::RequestValidator");
    expect(validator!.props).toMatchObject({ ValidateRequestBody: true, ValidateRequestParameters: true });
    for (const m of methods.filter((m) => routeOf(m) !== "GET /openapi.json")) expect(m.props.RequestValidatorId).toEqual(ref(validator!.id));
    const get = methods.find((m) => m.props.HttpMethod === "GET")!;
    expect(get.props.RequestParameters).toEqual({ "method.request.querystring.url": true });
    const models = Object.fromEntries(resources(dev, "AWS::ApiGateway::Model").map((m) => [m.id, m.props.Schema as unknown]));
    const schemaOf = (route: string) => models[methods.find((m) => m.props.HttpMethod === "POST" && resourcePaths[m.props.ResourceId.Ref] === route)!.props.RequestModels["application/json"].Ref];
    expect(schemaOf("fetch")).toMatchObject({ maxProperties: FIELD_LIMITS.properties, properties: { url: { maxLength: FIELD_LIMITS.url } } });
    expect(schemaOf("search")).toMatchObject({ properties: { query: { maxLength: FIELD_LIMITS.query } } });
  });

  it("throttles the stage, writes JSON access logs without query strings and no data traces", () => {
    const [stage] = resources(dev, "AWS::ApiGateway::Stage");
    expect(stage!.props.MethodSettings).toEqual([
      expect.objectContaining({ HttpMethod: "*", ResourcePath: "/*", ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40, DataTraceEnabled: false, LoggingLevel: "ERROR" }),
    ]);
    const format = JSON.parse(stage!.props.AccessLogSetting.Format as string) as Record<string, string>;
    expect(format).toMatchObject({ requestId: "$context.requestId", status: "$context.status", apiKeyId: "$context.identity.apiKeyId", resource: "$context.resourcePath" });
    expect(Object.values(format)).not.toContain("$context.path");
  });

  it("has a usage plan per environment with rate, burst and quota, holding the first key", () => {
    dev.template.hasResourceProperties("AWS::ApiGateway::UsagePlan", { Throttle: { RateLimit: 5, BurstLimit: 10 }, Quota: { Limit: 5000, Period: "DAY" } });
    prod.template.hasResourceProperties("AWS::ApiGateway::UsagePlan", { Throttle: { RateLimit: 20, BurstLimit: 40 }, Quota: { Limit: 100000, Period: "DAY" } });
    dev.template.hasResourceProperties("AWS::ApiGateway::UsagePlanKey", { KeyType: "API_KEY", KeyId: ref(idOf(dev, "AWS::ApiGateway::ApiKey")) });
  });

  it("answers gateway errors in webgate's error shape", () => {
    const responses = Object.fromEntries(resources(dev, "AWS::ApiGateway::GatewayResponse").map((r) => [r.props.ResponseType, r.props]));
    const body = (type: string) => JSON.parse(responses[type].ResponseTemplates["application/json"]) as { error: Record<string, unknown> };
    // A missing or wrong key keeps API Gateway's own 403 {"message":"Forbidden"} (the contract).
    expect(responses.INVALID_API_KEY).toBeUndefined();
    expect(body("THROTTLED").error).toEqual({ code: "rate_limited", message: expect.any(String), retryable: true, request_id: "$context.requestId" });
    for (const type of Object.keys(responses)) {
      const props = responses[type];
      const template: { error: { code: keyof typeof ERROR_TABLE } } = JSON.parse(props.ResponseTemplates["application/json"]);
      const code = template.error.code;
      // Every gateway code is a code of the error table, with the table's status.
      expect(ERROR_TABLE[code]?.status, code).toBe(Number(props.StatusCode));
    }
    expect(body("BAD_REQUEST_BODY").error.code).toBe("invalid_request");
    expect(responses.MISSING_AUTHENTICATION_TOKEN.StatusCode).toBe("404");
    expect(responses.THROTTLED.StatusCode).toBe("429");
    // Oversized requests: 413 in the project's shape, as the handlers and the local server say.
    expect(responses.REQUEST_TOO_LARGE.StatusCode).toBe("413");
    expect(body("REQUEST_TOO_LARGE").error.code).toBe("request_too_large");
    // A throttled Lambda (reserved concurrency) reaches API Gateway as INTEGRATION_FAILURE:
    // the caller gets 429 rate_limited, never 500 internal.
    expect(responses.INTEGRATION_FAILURE.StatusCode).toBe("429");
    expect(body("INTEGRATION_FAILURE").error).toMatchObject({ code: "rate_limited", retryable: true });
    expect(Object.keys(responses).sort()).toEqual([
      "BAD_REQUEST_BODY", "BAD_REQUEST_PARAMETERS", "DEFAULT_5XX", "INTEGRATION_FAILURE", "INTEGRATION_TIMEOUT", "MISSING_AUTHENTICATION_TOKEN",
      "QUOTA_EXCEEDED", "REQUEST_TOO_LARGE", "RESOURCE_NOT_FOUND", "THROTTLED", "UNSUPPORTED_MEDIA_TYPE",
    ]);
    // DEFAULT_4XX stays API Gateway's: INVALID_API_KEY and WAF_FILTERED fall back to it (403 Forbidden).
    expect(responses.DEFAULT_4XX).toBeUndefined();
    expect(responses.WAF_FILTERED).toBeUndefined();
  });

  it("outputs the URL and the key id, never the key value", () => {
    expect(dev.json.Outputs.ApiKeyId!.Value).toEqual(ref(idOf(dev, "AWS::ApiGateway::ApiKey")));
    expect(JSON.stringify(dev.json.Outputs.ApiUrl!.Value)).toContain("execute-api");
    expect(JSON.stringify(dev.json.Outputs)).not.toMatch(/APIKeyValue|Value"\s*:\s*\{\s*"Fn::GetAtt"\s*:\s*\[\s*"[^"]*ApiKey/);
    dev.template.hasResourceProperties("AWS::ApiGateway::ApiKey", { Value: Match.absent() });
  });
});

describe("policy validation (cdk-nag AwsSolutions, cfn-guard Control Tower)", () => {
  it("reports no unacknowledged finding in any environment", () => {
    expect(dev.violations).toEqual([]);
    expect(prod.violations).toEqual([]);
  });

  it("does fail a synth on an unacknowledged finding (the check above is live)", () => {
    const app = new App({ context: { "aws:cdk:bundling-stacks": [] } });
    new sns.Topic(new Stack(app, "Bad"), "Topic");
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-SNS3/);
  });

  it("does fail a synth on a Control Tower rule through cfn-guard (the plugin runs offline)", () => {
    const app = new App({ context: { "aws:cdk:bundling-stacks": [] } });
    const stack = new Stack(app, "BadTable");
    new dynamodb.CfnTable(stack, "Table", { keySchema: [{ attributeName: "pk", keyType: "HASH" }], attributeDefinitions: [{ attributeName: "pk", attributeType: "S" }], billingMode: "PAY_PER_REQUEST" });
    // The one Control Tower rule this needs, from the same package as the full set the synths run.
    const rule = path.join(path.dirname(createRequire(import.meta.url).resolve("@cdklabs/cdk-validator-cfnguard/package.json")), "rules/control-tower/cfn-guard/dynamodb/ct-dynamodb-pr-1.guard");
    Validations.of(app).addPlugins(new CfnGuardValidator({ controlTowerRulesEnabled: false, rules: [rule] }));
    expect(() => app.synth()).toThrow(/CT\.DYNAMODB\.PR\.1/);
  });
});
