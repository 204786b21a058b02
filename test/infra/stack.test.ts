import { ERROR_TABLE } from "../../shared/errors";
import { App, Stack, Validations } from "aws-cdk-lib";
import * as sns from "aws-cdk-lib/aws-sns";
import { Match } from "aws-cdk-lib/assertions";
import { AwsSolutionsChecks } from "cdk-nag";
import { describe, expect, it } from "vitest";
import { FIELD_LIMITS } from "../../infra/constructs/api";
import { PAGE_TABLE_ITEM_ACTIONS } from "../../infra/constructs/page-table";
import { ENV } from "../../shared/config";
import { METRICS_NAMESPACE } from "../../shared/observability/metric-names";
import { CDK_CONTEXT, resourcesOf, synth, type Props, type Synthesized } from "./synth";

const resources = resourcesOf;

const dev = synth("dev");
const prod = synth("prod");

/** The API functions (not CDK's own custom-resource provider). */
function apiFunctions(s: Synthesized) {
  const fns = resources(s, "AWS::Lambda::Function").filter((f) => f.props.Environment?.Variables?.POWERTOOLS_SERVICE_NAME);
  const byService = (name: string) => fns.find((f) => f.props.Environment.Variables.POWERTOOLS_SERVICE_NAME === name)!;
  return { all: fns, fetch: byService("webgate-fetch"), search: byService("webgate-search") };
}

const ref = (id: string) => ({ Ref: id });
const idOf = (s: Synthesized, type: string) => resources(s, type)[0]!.id;

describe("functions", () => {
  const { all, fetch, search } = apiFunctions(dev);
  const sgId = resources(dev, "AWS::EC2::SecurityGroup").find((g) => String(g.props.GroupDescription).startsWith("webgate functions"))!.id;

  it("run Node.js 22 on arm64 inside the VPC's function subnets with the locked-down security group", () => {
    expect(all).toHaveLength(2);
    const functionSubnets = resources(dev, "AWS::EC2::Subnet")
      .filter((s) => JSON.stringify(s.props.Tags).includes('"Value":"functions"'))
      .map((s) => ref(s.id));
    for (const fn of all) {
      expect(fn.props).toMatchObject({ Runtime: "nodejs22.x", Architectures: ["arm64"], Handler: "index.handler" });
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

  it("lets fetch read and write items of its own table and nothing else", () => {
    const st = statements(fetch);
    expect(st).toHaveLength(3);
    expect(st.find((s) => s.Sid === "OwnLogGroup")).toMatchObject({ Effect: "Allow", Action: ["logs:CreateLogStream", "logs:PutLogEvents"], Resource: logGroupArn(fetch) });
    expect(sorted(st.find((s) => s.Sid === "VpcNetworkInterfaces")!.Action)).toEqual(eniActions);
    const table = st.find((s) => s.Sid === undefined)!;
    expect(sorted(table.Action)).toEqual([...PAGE_TABLE_ITEM_ACTIONS].sort());
    expect(table.Resource).toEqual({ "Fn::GetAtt": [idOf(dev, "AWS::DynamoDB::Table"), "Arn"] });
  });

  it("lets search read its own secret's value and nothing else", () => {
    const st = statements(search);
    expect(st).toHaveLength(3);
    expect(st.find((s) => s.Sid === "OwnLogGroup")!.Resource).toEqual(logGroupArn(search));
    const secret = st.find((s) => s.Sid === undefined)!;
    expect(secret).toMatchObject({ Effect: "Allow", Action: "secretsmanager:GetSecretValue", Resource: ref(idOf(dev, "AWS::SecretsManager::Secret")) });
  });

  it("has no wildcard action anywhere, and Resource * only on the ENI actions", () => {
    for (const p of policies) {
      for (const s of p.props.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>) {
        for (const action of sorted(s.Action)) expect(action).not.toMatch(/\*/);
        if (JSON.stringify(s.Resource).includes('"*"')) expect(sorted(s.Action)).toEqual(eniActions);
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

  it("is a regional REST API with POST/GET /fetch and POST /search only, no CORS", () => {
    dev.template.hasResourceProperties("AWS::ApiGateway::RestApi", { EndpointConfiguration: { Types: ["REGIONAL"] } });
    const routes = methods.map((m) => `${m.props.HttpMethod} /${resourcePaths[m.props.ResourceId.Ref]}`).sort();
    expect(routes).toEqual(["GET /fetch", "POST /fetch", "POST /search"]);
  });

  it("requires an API key on every method", () => {
    for (const m of methods) expect(m.props.ApiKeyRequired).toBe(true);
  });

  it("validates request bodies and the GET url parameter", () => {
    const [validator] = resources(dev, "AWS::ApiGateway::RequestValidator");
    expect(validator!.props).toMatchObject({ ValidateRequestBody: true, ValidateRequestParameters: true });
    for (const m of methods) expect(m.props.RequestValidatorId).toEqual(ref(validator!.id));
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
  });

  it("outputs the URL and the key id, never the key value", () => {
    expect(dev.json.Outputs.ApiKeyId!.Value).toEqual(ref(idOf(dev, "AWS::ApiGateway::ApiKey")));
    expect(JSON.stringify(dev.json.Outputs.ApiUrl!.Value)).toContain("execute-api");
    expect(JSON.stringify(dev.json.Outputs)).not.toMatch(/APIKeyValue|Value"\s*:\s*\{\s*"Fn::GetAtt"\s*:\s*\[\s*"[^"]*ApiKey/);
    dev.template.hasResourceProperties("AWS::ApiGateway::ApiKey", { Value: Match.absent() });
  });
});

describe("observability", () => {
  const alarms = resources(dev, "AWS::CloudWatch::Alarm");

  it("alarms on the API 5xx rate, Lambda errors and throttles, and DynamoDB throttles", () => {
    const names = alarms.map((a) => a.props.AlarmName as string).sort();
    expect(names).toEqual([
      "webgate-dev-api-5xx-rate",
      "webgate-dev-fetch-errors",
      "webgate-dev-fetch-throttles",
      "webgate-dev-search-errors",
      "webgate-dev-search-throttles",
      "webgate-dev-table-throttles",
    ]);
    const rate = alarms.find((a) => a.props.AlarmName === "webgate-dev-api-5xx-rate")!;
    expect(rate.props.Threshold).toBe(10);
    expect(JSON.stringify(rate.props.Metrics)).toContain('"MetricName":"5XXError"');
    const tableAlarm = alarms.find((a) => a.props.AlarmName === "webgate-dev-table-throttles")!;
    expect(JSON.stringify(tableAlarm.props.Metrics)).toMatch(/ReadThrottleEvents.*WriteThrottleEvents/);
  });

  it("has no alarm actions unless a topic is configured, then notifies it on alarm and recovery", () => {
    for (const a of alarms) expect(a.props.AlarmActions).toBeUndefined();
    const topicArn = "arn:aws:sns:eu-west-1:123456789012:oncall";
    const envs = structuredClone(CDK_CONTEXT.environments) as Record<string, { alarms: Record<string, unknown> }>;
    envs.dev!.alarms.topicArn = topicArn;
    const withTopic = resources(synth("dev", { key: "topic", environments: envs }), "AWS::CloudWatch::Alarm");
    expect(withTopic).toHaveLength(6);
    for (const a of withTopic) {
      expect(a.props.AlarmActions).toEqual([topicArn]);
      expect(a.props.OKActions).toEqual([topicArn]);
    }
  });

  it("has a dashboard whose webgate widgets search every dimension set of the handlers' metrics", () => {
    const [dash] = resources(dev, "AWS::CloudWatch::Dashboard");
    const body = JSON.stringify(dash!.props.DashboardBody);
    for (const metric of ["Requests", "CacheHit", "CacheMiss", "CacheBypass", "Refusals", "OriginLatencyMs", "OriginBytes", "ProviderCalls"]) {
      expect(body).toContain(`Namespace=\\\\\\"Webgate\\\\\\" MetricName=\\\\\\"${metric}\\\\\\"`);
    }
  });
});

describe("cdk-nag AwsSolutions", () => {
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
});
