/**
 * Production-grade parts of the stacks (issue 13): who the alarms page and on what, the WAF, the
 * gateway's own answers, the OpenAPI route, the blast-radius settings per environment.
 */
import * as path from "node:path";
import { App, RemovalPolicy } from "aws-cdk-lib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openApiTemplate, STAGE_NAME } from "../../infra/constructs/api";
import { ApiFunction } from "../../infra/constructs/api-function";
import { MANAGED_DOMAIN_LISTS } from "../../infra/constructs/dns-firewall";
import { WAF_RULES } from "../../infra/constructs/waf";
import { buildOpenApiDocument } from "../../shared/api/openapi";
import { ERROR_TABLE } from "../../shared/errors";
import { MAX_REQUEST_BODY_BYTES } from "../../shared/middleware/parse-request";
import { METRIC, OWN_FAULT_CODES } from "../../shared/observability/metric-names";
import { PROVIDER_NAMES } from "../../shared/search/schema";
import { createPowertoolsTelemetry } from "../../shared/observability/telemetry";
import { resolveEnvironment } from "../../infra/environments";
import { REPO_ROOT, WebgateStack } from "../../infra/webgate-stack";
import { CDK_CONTEXT, entryStubs, resourcesOf, synth, type Props, type Synthesized } from "./synth";

const dev = synth("dev");
const prod = synth("prod");
const resources = (s: Synthesized, type: string) => resourcesOf(s, type);
const alarmsOf = (s: Synthesized) => resources(s, "AWS::CloudWatch::Alarm");
const alarmNamed = (s: Synthesized, name: string) => alarmsOf(s).find((a) => a.props.AlarmName === name)!;

/** An environments table: cdk.json's, with `edit` applied to a copy of one environment. */
function variant(envName: string, edit: (env: Record<string, any>) => void): Record<string, unknown> {
  const envs = structuredClone(CDK_CONTEXT.environments) as Record<string, Record<string, any>>;
  edit(envs[envName]!);
  return envs;
}

/**
 * One variant of dev for the settings' other branches: an existing alarm topic, WAF on with its
 * own rate, no API Gateway account role (one synth: each costs seconds on 2 cores).
 */
const devVariant = synth("dev", {
  key: "variant",
  environments: variant("dev", (env) => {
    env.alarms.topicArn = "arn:aws:sns:eu-west-1:123456789012:oncall";
    env.waf = { enabled: true, ipRateLimitPer5Min: 200 };
    env.apiGatewayAccountRole = false;
  }),
});

/** The metrics of an alarm's metric-math expression, by id. */
function alarmMetrics(alarm: { props: Props }): Array<{ Id: string; Expression?: string; MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions?: Array<{ Name: string; Value: unknown }> } } }> {
  return alarm.props.Metrics as never;
}

describe("alarms", () => {
  it("cover every function of the stack, the NAT gateways, the table and the providers, and not origin failures", () => {
    const names = alarmsOf(dev).map((a) => a.props.AlarmName as string).sort();
    expect(names).toEqual([
      "webgate-dev-fetch-duration-p99",
      "webgate-dev-fetch-errors",
      "webgate-dev-fetch-own-faults",
      "webgate-dev-fetch-throttles",
      "webgate-dev-mcp-duration-p99",
      "webgate-dev-mcp-errors",
      "webgate-dev-mcp-own-faults",
      ...PROVIDER_NAMES.map((p) => `webgate-dev-mcp-provider-${p}`).sort(),
      "webgate-dev-mcp-throttles",
      "webgate-dev-nat-0-port-allocation",
      "webgate-dev-render-duration-p99",
      "webgate-dev-render-errors",
      "webgate-dev-render-throttles",
      "webgate-dev-search-duration-p99",
      "webgate-dev-search-errors",
      "webgate-dev-search-own-faults",
      ...PROVIDER_NAMES.map((p) => `webgate-dev-search-provider-${p}`).sort(),
      "webgate-dev-search-throttles",
      "webgate-dev-table-throttles",
    ]);
    // prod has two NAT gateways, each with its alarm.
    expect(alarmsOf(prod).filter((a) => String(a.props.AlarmName).includes("port-allocation"))).toHaveLength(2);
    // No alarm reads API Gateway's 5XXError, which counts the origins' 502/504.
    for (const a of alarmsOf(dev)) expect(JSON.stringify(a.props)).not.toContain("5XXError");
  });

  it("count webgate's own faults by code, with the exact dimensions the handlers emit", () => {
    const alarm = alarmNamed(dev, "webgate-dev-fetch-own-faults");
    const metrics = alarmMetrics(alarm);
    const faults = metrics.filter((m) => m.MetricStat?.Metric.MetricName === METRIC.serverErrors);
    expect(faults.map((m) => m.MetricStat!.Metric.Dimensions!.find((d) => d.Name === "code")!.Value).sort()).toEqual([...OWN_FAULT_CODES].sort());
    for (const m of faults) {
      expect(m.MetricStat!.Metric.Namespace).toBe("Webgate");
      expect(Object.fromEntries(m.MetricStat!.Metric.Dimensions!.map((d) => [d.Name, d.Value]))).toMatchObject({ service: "webgate-fetch", route: "fetch" });
    }
    // As a share of the function's invocations, over the configured threshold, two periods.
    expect(metrics.find((m) => m.MetricStat?.Metric.MetricName === "Invocations")).toBeDefined();
    const expression = metrics.find((m) => m.Expression !== undefined)!.Expression!;
    expect(expression).toMatch(/^IF\(FILL\(invocations, 0\) > 0, 100 \* \(FILL\(f0, 0\) \+ .*\) \/ invocations, 0\)$/);
    expect(alarm.props).toMatchObject({ Threshold: 10, EvaluationPeriods: 2, ComparisonOperator: "GreaterThanThreshold", TreatMissingData: "notBreaching" });
    expect(alarmNamed(prod, "webgate-prod-fetch-own-faults").props.Threshold).toBe(5);
    // Origin failures are not among the codes.
    expect(JSON.stringify(metrics)).not.toMatch(/connect_failed|upstream_timeout|upstream_status/);
  });

  it("use the dimension set Powertools really writes (service added to route and code)", () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const telemetry = createPowertoolsTelemetry("webgate-fetch");
      telemetry.metric(METRIC.serverErrors, "Count", 1, { route: "fetch", code: "internal" });
      telemetry.flush();
    } finally {
      spy.mockRestore();
    }
    const emf = lines.map((l) => JSON.parse(l) as Record<string, any>).find((doc) => doc._aws?.CloudWatchMetrics)!;
    const dims = (emf._aws.CloudWatchMetrics[0].Dimensions as string[][])[0]!;
    expect([...dims].sort()).toEqual(["code", "route", "service"]);
    const alarmDims = alarmMetrics(alarmNamed(dev, "webgate-dev-fetch-own-faults")).find((m) => m.MetricStat?.Metric.MetricName === METRIC.serverErrors)!.MetricStat!.Metric.Dimensions!;
    expect(alarmDims.map((d) => d.Name).sort()).toEqual(["code", "route", "service"]);
    expect({ service: emf.service, route: emf.route, code: emf.code }).toEqual({ service: "webgate-fetch", route: "fetch", code: "internal" });
  });

  it("alarm on p99 duration near the timeout, throttles, NAT port allocation and provider failures by provider", () => {
    expect(alarmNamed(dev, "webgate-dev-fetch-duration-p99").props).toMatchObject({ ExtendedStatistic: "p99", MetricName: "Duration", Threshold: 26_600, EvaluationPeriods: 2 });
    expect(alarmNamed(dev, "webgate-dev-search-duration-p99").props.Threshold).toBe(23_750);
    expect(alarmNamed(dev, "webgate-dev-fetch-throttles").props).toMatchObject({ MetricName: "Throttles", Threshold: 1 });
    const nat = alarmNamed(dev, "webgate-dev-nat-0-port-allocation");
    expect(nat.props).toMatchObject({ Namespace: "AWS/NATGateway", MetricName: "ErrorPortAllocation", Threshold: 1 });
    expect(nat.props.Dimensions).toEqual([{ Name: "NatGatewayId", Value: { Ref: resources(dev, "AWS::EC2::NatGateway")[0]!.id } }]);
    for (const provider of PROVIDER_NAMES) {
      const alarm = alarmNamed(dev, `webgate-dev-search-provider-${provider}`);
      expect(alarm.props).toMatchObject({ Namespace: "Webgate", MetricName: METRIC.searchProviderFailures, Statistic: "Sum", Threshold: 5 });
      expect(Object.fromEntries((alarm.props.Dimensions as Array<{ Name: string; Value: string }>).map((d) => [d.Name, d.Value]))).toEqual({ service: "webgate-search", provider });
    }
  });

  it("come with every function the stack holds, found in its tree", () => {
    const fns = dev.stack.node.findAll().filter((c): c is ApiFunction => c instanceof ApiFunction);
    expect(dev.stack.observability.functions).toEqual(fns);
    for (const fn of fns) {
      // The own-fault alarm needs the route a function's handler reports (render has none: it is
      // invoked by fetch, not through the API).
      const kinds = fn.route === undefined ? ["errors", "throttles", "duration-p99"] : ["errors", "throttles", "duration-p99", "own-faults"];
      for (const kind of kinds) expect(alarmNamed(dev, `webgate-dev-${fn.node.id.toLowerCase()}-${kind}`), kind).toBeDefined();
    }
  });

  it("fail the synth for a function created after the observability construct", () => {
    const app = new App({ context: { ...CDK_CONTEXT, "aws:cdk:bundling-stacks": [] } });
    const stubs = entryStubs();
    const stack = new WebgateStack(app, "webgate-late", { envName: "dev", settings: resolveEnvironment("dev", CDK_CONTEXT.environments).settings, functionsDir: stubs });
    new ApiFunction(stack, "Late", {
      entry: path.join(stubs, "fetch", "handler.ts"),
      depsLockFilePath: path.join(REPO_ROOT, "package-lock.json"),
      serviceName: "webgate-late",
      memoryMb: 128,
      timeoutS: 3,
      reservedConcurrency: 1,
      logRetentionDays: 14,
      logRemovalPolicy: RemovalPolicy.DESTROY,
      vpc: stack.network.vpc,
      subnets: stack.network.functionSubnets,
      securityGroup: stack.network.functionSecurityGroup,
      environment: {},
    });
    expect(() => app.synth()).toThrow(/webgate-late\/Late: created after the Observability construct, so it has no alarms/);
  });

  it("notify a topic the stack creates, with an email subscription, on alarm and on recovery", () => {
    const [topic] = resources(prod, "AWS::SNS::Topic");
    expect(topic).toBeDefined();
    prod.template.hasResourceProperties("AWS::SNS::Subscription", { Protocol: "email", Endpoint: "oncall@example.com", TopicArn: { Ref: topic!.id } });
    // enforceSSL: publishing over plain HTTP is denied.
    expect(JSON.stringify(resources(prod, "AWS::SNS::TopicPolicy")[0]!.props.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    for (const s of [dev, prod]) {
      for (const a of alarmsOf(s)) {
        expect(a.props.AlarmActions).toEqual([{ Ref: resources(s, "AWS::SNS::Topic")[0]!.id }]);
        expect(a.props.OKActions).toEqual(a.props.AlarmActions);
      }
    }
    // dev has the topic but no subscriber unless cdk.json gives one.
    expect(resources(dev, "AWS::SNS::Subscription")).toHaveLength(0);
  });

  it("notify an existing topic instead when its ARN is given, creating none", () => {
    const topicArn = "arn:aws:sns:eu-west-1:123456789012:oncall";
    const s = devVariant;
    expect(resources(s, "AWS::SNS::Topic")).toHaveLength(0);
    expect(alarmsOf(s)).toHaveLength(alarmsOf(dev).length);
    for (const a of alarmsOf(s)) {
      expect(a.props.AlarmActions).toEqual([topicArn]);
      expect(a.props.OKActions).toEqual([topicArn]);
    }
  });

  it("has a dashboard whose webgate widgets search every dimension set of the handlers' metrics", () => {
    const [dash] = resources(dev, "AWS::CloudWatch::Dashboard");
    const body = JSON.stringify(dash!.props.DashboardBody);
    for (const metric of ["Requests", "CacheHit", "CacheMiss", "CacheBypass", "Refusals", "ServerErrors", "OriginLatencyMs", "OriginBytes", "ProviderCalls"]) {
      expect(body).toContain(`Namespace=\\\\\\"Webgate\\\\\\" MetricName=\\\\\\"${metric}\\\\\\"`);
    }
    // The 5xx rate (origin failures included) is a dashboard widget, not an alarm.
    expect(body).toContain("5XXError");
    const prodBody = JSON.stringify(resources(prod, "AWS::CloudWatch::Dashboard")[0]!.props.DashboardBody);
    expect(prodBody).toContain("AWS/WAFV2");
    expect(body).not.toContain("AWS/WAFV2");
  });
});

describe("WAF", () => {
  it("is on in prod (a retained environment) and off in dev", () => {
    expect(resources(dev, "AWS::WAFv2::WebACL")).toHaveLength(0);
    expect(resources(prod, "AWS::WAFv2::WebACL")).toHaveLength(1);
  });

  it("is associated with the API stage", () => {
    const [assoc] = resources(prod, "AWS::WAFv2::WebACLAssociation");
    const [acl] = resources(prod, "AWS::WAFv2::WebACL");
    const [stage] = resources(prod, "AWS::ApiGateway::Stage");
    expect(assoc!.props.WebACLArn).toEqual({ "Fn::GetAtt": [acl!.id, "Arn"] });
    const arn = JSON.stringify(assoc!.props.ResourceArn);
    expect(arn).toContain(`/stages/`);
    expect(arn).toContain(stage!.id);
  });

  it("blocks bad IP reputation, bodies over 16 KiB (413) and per-IP floods (429) in webgate's error shape", () => {
    const [acl] = resources(prod, "AWS::WAFv2::WebACL");
    const rules = acl!.props.Rules as Array<Record<string, any>>;
    expect(acl!.props).toMatchObject({ Scope: "REGIONAL", DefaultAction: { Allow: {} } });
    expect(rules.map((r) => r.Name)).toEqual([WAF_RULES.ipReputation, WAF_RULES.bodySize, WAF_RULES.ipRate]);
    expect(rules[0]!.Statement.ManagedRuleGroupStatement).toEqual({ VendorName: "AWS", Name: "AWSManagedRulesAmazonIpReputationList" });
    expect(rules[1]!.Statement.SizeConstraintStatement).toMatchObject({
      FieldToMatch: { Body: { OversizeHandling: "MATCH" } },
      ComparisonOperator: "GT",
      Size: MAX_REQUEST_BODY_BYTES,
    });
    expect(rules[1]!.Action.Block.CustomResponse).toEqual({ ResponseCode: 413, CustomResponseBodyKey: "request_too_large" });
    expect(rules[2]!.Statement.RateBasedStatement).toEqual({ Limit: 3000, AggregateKeyType: "IP", EvaluationWindowSec: 300 });
    expect(rules[2]!.Action.Block.CustomResponse).toEqual({ ResponseCode: 429, CustomResponseBodyKey: "rate_limited" });
    const bodies = acl!.props.CustomResponseBodies as Record<string, { ContentType: string; Content: string }>;
    for (const [key, status] of [["request_too_large", 413], ["rate_limited", 429]] as const) {
      expect(bodies[key]!.ContentType).toBe("APPLICATION_JSON");
      const body = JSON.parse(bodies[key]!.Content) as { error: { code: keyof typeof ERROR_TABLE; retryable: boolean } };
      expect(body.error.code).toBe(key);
      expect(ERROR_TABLE[body.error.code].status).toBe(status);
      expect(body.error.retryable).toBe(ERROR_TABLE[key].retryable);
    }
    for (const r of rules) expect(r.VisibilityConfig.CloudWatchMetricsEnabled).toBe(true);
  });

  it("takes effect in dev when cdk.json turns it on, and nag's WAF rule fires only where it is off", () => {
    const s = devVariant;
    expect((resources(s, "AWS::WAFv2::WebACL")[0]!.props.Rules as Array<Record<string, any>>)[2]!.Statement.RateBasedStatement.Limit).toBe(200);
    expect(s.violations).toEqual([]);
  });
});

describe("GET /openapi.json", () => {
  const method = resources(dev, "AWS::ApiGateway::Method").find((m) => m.props.HttpMethod === "GET" && m.props.Integration?.Type === "MOCK")!;

  it("is a mock integration with no key and no Lambda behind it", () => {
    expect(method.props).toMatchObject({ ApiKeyRequired: false, AuthorizationType: "NONE", Integration: { Type: "MOCK" } });
    const resource = resources(dev, "AWS::ApiGateway::Resource").find((r) => r.id === method.props.ResourceId.Ref)!;
    expect(resource.props.PathPart).toBe("openapi.json");
  });

  it("answers the document generated at synth, with the stage as its server", () => {
    const response = (method.props.Integration.IntegrationResponses as Array<Record<string, any>>)[0]!;
    expect(response.StatusCode).toBe("200");
    expect(response.ResponseParameters["method.response.header.Content-Type"]).toBe("'application/json'");
    const template = response.ResponseTemplates["application/json"] as string;
    expect(template).toBe(openApiTemplate(STAGE_NAME));
    // VTL evaluates `$util.base64Decode("…")` to the decoded text; the literal has no $ or #
    // for VTL to interpret.
    const match = /^\$util\.base64Decode\("([A-Za-z0-9+/=]+)"\)$/.exec(template);
    expect(match).not.toBeNull();
    const document = JSON.parse(Buffer.from(match![1]!, "base64").toString("utf8")) as Record<string, any>;
    expect(document).toEqual(buildOpenApiDocument({ servers: [{ url: "/v1", description: "this API Gateway stage" }] }));
    expect(document.paths["/fetch"].post.responses["413"].description).toContain("request_too_large");
    expect(document.paths["/search"].post.responses["429"].description).toContain("rate_limited");
  });
});

describe("offline synth", () => {
  // A lookup left in the assembly makes `cdk synth` (npm run synth) ask AWS, and fail without
  // credentials. prod fixes account, region and zones; ec2.Vpc still asked the stack for the
  // account's zones until the stack answered with cdk.json's.
  it.each([
    ["dev", dev],
    ["prod", prod],
  ])("%s leaves no context lookup for the CLI, and prod's subnets are in cdk.json's zones", (name, s) => {
    expect(s.missing).toEqual([]);
    const zones = new Set(resources(s, "AWS::EC2::Subnet").map((r) => JSON.stringify(r.props.AvailabilityZone)));
    if (name === "prod") expect([...zones].sort()).toEqual(['"eu-west-1a"', '"eu-west-1b"']);
  });
});

describe("blast radius per environment", () => {
  it("pins prod to its account and region with termination protection; dev stays environment-agnostic", () => {
    expect(prod.stack.account).toBe("123456789012");
    expect(prod.stack.region).toBe("eu-west-1");
    expect(prod.stack.terminationProtection).toBe(true);
    expect(dev.stack.terminationProtection).toBe(false);
    expect(dev.stack.account).toMatch(/^\$\{Token/);
    // The zones come from cdk.json: no availability-zone lookup (offline synth).
    const azs = resources(prod, "AWS::EC2::Subnet").map((s) => s.props.AvailabilityZone as string);
    expect(new Set(azs)).toEqual(new Set(["eu-west-1a", "eu-west-1b"]));
  });

  it("creates AWS::ApiGateway::Account only where the environment owns it, removed with a dev stack", () => {
    expect(resources(dev, "AWS::ApiGateway::Account")).toHaveLength(1);
    dev.template.hasResource("AWS::ApiGateway::Account", { DeletionPolicy: "Delete" });
    prod.template.hasResource("AWS::ApiGateway::Account", { DeletionPolicy: "Retain" });
    const s = devVariant;
    expect(resources(s, "AWS::ApiGateway::Account")).toHaveLength(0);
    // Without the role, no role for API Gateway is created at all, and nothing is left to acknowledge.
    expect(resources(s, "AWS::IAM::Role").filter((r) => JSON.stringify(r.props.AssumeRolePolicyDocument).includes("apigateway.amazonaws.com"))).toHaveLength(0);
    expect(s.violations).toEqual([]);
  });

  it("maps no public IP on launch in the public subnets (the NAT gateways bring Elastic IPs)", () => {
    for (const s of [dev, prod]) {
      const subnets = resources(s, "AWS::EC2::Subnet");
      expect(subnets).toHaveLength(6);
      for (const subnet of subnets) expect(subnet.props.MapPublicIpOnLaunch ?? false).toBe(false);
      expect(resources(s, "AWS::EC2::EIP").length).toBe(resources(s, "AWS::EC2::NatGateway").length);
    }
  });

  it("turns point-in-time recovery on in prod and off in dev", () => {
    prod.template.hasResourceProperties("AWS::DynamoDB::Table", { PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } });
    dev.template.hasResourceProperties("AWS::DynamoDB::Table", { PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false } });
  });
});

describe("DNS Firewall", () => {
  it("blocks the AWS-managed threat lists with NXDOMAIN on the prod VPC, off in dev", () => {
    expect(resources(dev, "AWS::Route53Resolver::FirewallRuleGroup")).toHaveLength(0);
    const [group] = resources(prod, "AWS::Route53Resolver::FirewallRuleGroup");
    const [lookup] = resources(prod, "Custom::WebgateManagedDomainLists");
    expect(lookup!.props.Names).toEqual([...MANAGED_DOMAIN_LISTS]);
    const rules = group!.props.FirewallRules as Array<Record<string, unknown>>;
    expect(rules).toEqual(
      MANAGED_DOMAIN_LISTS.map((name, i) => ({ FirewallDomainListId: { "Fn::GetAtt": [lookup!.id, name] }, Priority: (i + 1) * 100, Action: "BLOCK", BlockResponse: "NXDOMAIN" })),
    );
    const [assoc] = resources(prod, "AWS::Route53Resolver::FirewallRuleGroupAssociation");
    expect(assoc!.props).toMatchObject({ FirewallRuleGroupId: { "Fn::GetAtt": [group!.id, "Id"] }, VpcId: { Ref: resources(prod, "AWS::EC2::VPC")[0]!.id }, Priority: 101 });
  });

  it("looks the list ids up with a function that may only list domain lists", () => {
    const [lookup] = resources(prod, "Custom::WebgateManagedDomainLists");
    const fnId = (lookup!.props.ServiceToken as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
    const fn = resources(prod, "AWS::Lambda::Function").find((f) => f.id === fnId)!;
    expect(fn.props).toMatchObject({ Runtime: "nodejs22.x", Handler: "index.handler", ReservedConcurrentExecutions: 1 });
    expect((fn.props.Code as { ZipFile: string }).ZipFile).toContain("ListFirewallDomainListsCommand");
    expect(fn.props.VpcConfig).toBeDefined();
    const policy = resources(prod, "AWS::IAM::Policy").find((p) => JSON.stringify(p.props.Roles).includes(fn.props.Role["Fn::GetAtt"][0]))!;
    const actions = (policy.props.PolicyDocument.Statement as Array<{ Action: string | string[] }>).flatMap((st) => (Array.isArray(st.Action) ? st.Action : [st.Action]));
    expect(actions.filter((a) => a.startsWith("route53resolver:"))).toEqual(["route53resolver:ListFirewallDomainLists"]);
    expect(actions.some((a) => /^(route53resolver|route53):(Create|Update|Delete|Associate|Disassociate)/.test(a))).toBe(false);
  });
});

afterEach(() => vi.restoreAllMocks());
