/**
 * One webgate environment: network (and its DNS Firewall), page table, provider secret, the
 * functions, the API (and its WAF) and the observability. The stack only wires the constructs
 * together; each concern lives in infra/constructs/. An environment with an account and region
 * (required for retained ones) deploys there only; its zones are given, so it still
 * synthesizes offline.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { CfnOutput, RemovalPolicy, Stack, type StackProps, Validations } from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as logs from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { ENV } from "../shared/config";
import { Api } from "./constructs/api";
import { readerSideFileCommands } from "./bundling";
import { ApiFunction } from "./constructs/api-function";
import { DnsFirewall } from "./constructs/dns-firewall";
import { Network } from "./constructs/network";
import { Observability } from "./constructs/observability";
import { PageTable } from "./constructs/page-table";
import { ProviderSecret } from "./constructs/provider-secret";
import { Waf } from "./constructs/waf";
import { fetchFunctionEnvironment, searchFunctionEnvironment, type EnvironmentSettings } from "./environments";

/** The render function's memory: Chromium with one page wants about 1 GB; 2 GB also buys CPU. */
export const RENDER_FUNCTION_MEMORY_MB = 2_048;

/**
 * Installed into the render function's asset (`npm ci` of these, at the versions package-lock.json
 * pins) instead of bundled: @sparticuz/chromium's package carries the Chromium binary and the
 * libraries and fonts it unpacks at run time, which esbuild cannot bundle, and puppeteer-core
 * goes with it (test/infra/render-bundle.test.ts synthesizes the asset and runs its handler).
 */
export const RENDER_NODE_MODULES = ["@sparticuz/chromium", "puppeteer-core"] as const;

/** The repository root (infra/ is one level down). */
export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface WebgateStackProps extends Omit<StackProps, "env" | "terminationProtection"> {
  envName: string;
  settings: EnvironmentSettings;
  /**
   * Directory holding `fetch/handler.ts`, `search/handler.ts`, `mcp/handler.ts` and `render/handler.ts`.
   * @default `<repo>/functions`
   */
  functionsDir?: string;
}

export class WebgateStack extends Stack {
  readonly network: Network;
  readonly pageTable: PageTable;
  readonly providerSecret: ProviderSecret;
  readonly fetchFunction: ApiFunction;
  /** Renders pages for `render`; only the fetch function may invoke it. */
  readonly renderFunction: ApiFunction;
  readonly searchFunction: ApiFunction;
  /** Serves POST /mcp: web_fetch and web_search as MCP tools. */
  readonly mcpFunction: ApiFunction;
  readonly api: Api;
  readonly waf: Waf | undefined;
  readonly dnsFirewall: DnsFirewall | undefined;
  readonly observability: Observability;
  /** The environment's zones from cdk.json, when it names them (see {@link availabilityZones}). */
  private readonly fixedZones: readonly string[] | undefined;

  constructor(scope: Construct, id: string, props: WebgateStackProps) {
    const s = props.settings;
    super(scope, id, {
      ...props,
      // From cdk.json: a retained environment cannot deploy wherever the CLI profile points.
      ...(s.account !== undefined && s.region !== undefined ? { env: { account: s.account, region: s.region } } : {}),
      terminationProtection: s.terminationProtection,
    });
    this.fixedZones = s.availabilityZones;
    // What CDK's own getter acknowledges when it answers: literal zones in the template are the
    // zones the stack was given, here cdk.json's, on purpose (docs/deploy.md).
    if (this.fixedZones !== undefined) {
      Validations.of(this).acknowledge({ id: "CloudFormation-Validate::W3010", reason: "The subnets' zones are the environment's availabilityZones from cdk.json, fixed on purpose so that synth needs no lookup" });
    }
    const functionsDir = props.functionsDir ?? path.join(REPO_ROOT, "functions");
    const dataRemoval = s.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.network = new Network(this, "Network", {
      cidr: s.vpcCidr,
      natGateways: s.natGateways,
      ...(s.availabilityZones ? { availabilityZones: s.availabilityZones } : {}),
      logRetentionDays: s.logRetentionDays,
      removalPolicy: dataRemoval,
    });
    this.pageTable = new PageTable(this, "PageTable", { removalPolicy: dataRemoval, pointInTimeRecovery: s.pointInTimeRecovery });
    this.providerSecret = new ProviderSecret(this, "ProviderSecret");

    const common = {
      depsLockFilePath: path.join(REPO_ROOT, "package-lock.json"),
      logRetentionDays: s.logRetentionDays,
      logRemovalPolicy: dataRemoval,
      vpc: this.network.vpc,
      subnets: this.network.functionSubnets,
      securityGroup: this.network.functionSecurityGroup,
    };
    // The render function: a headless Chromium (@sparticuz/chromium, whose npm package carries
    // the x86_64 build only) with the guard's proxy in process, in the same subnets behind the
    // same security group and network ACLs as the fetch function. Chromium and puppeteer-core
    // are installed into the asset, not bundled; the fetch function's bundle carries neither.
    this.renderFunction = new ApiFunction(this, "Render", {
      ...common,
      entry: path.join(functionsDir, "render", "handler.ts"),
      serviceName: "webgate-render",
      memoryMb: RENDER_FUNCTION_MEMORY_MB,
      timeoutS: s.fetch.timeoutS,
      reservedConcurrency: s.fetch.reservedConcurrency,
      architecture: lambda.Architecture.X86_64,
      nodeModules: [...RENDER_NODE_MODULES],
      environment: {
        [ENV.FETCH_TIMEOUT_MS]: String(s.fetch.fetchTimeoutMs),
        [ENV.MAX_RESPONSE_BYTES]: String(s.fetch.maxResponseBytes),
        [ENV.MAX_REDIRECTS]: String(s.fetch.maxRedirects),
        [ENV.ALLOWED_DOMAINS]: s.fetch.allowedDomains.join(","),
        [ENV.BLOCKED_DOMAINS]: s.fetch.blockedDomains.join(","),
        // One invocation at a time per instance: one page per browser.
        [ENV.RENDER_CONCURRENCY]: "1",
      },
    });

    this.fetchFunction = new ApiFunction(this, "Fetch", {
      ...common,
      entry: path.join(functionsDir, "fetch", "handler.ts"),
      serviceName: "webgate-fetch",
      route: "fetch",
      memoryMb: s.fetch.memoryMb,
      timeoutS: s.fetch.timeoutS,
      reservedConcurrency: s.fetch.reservedConcurrency,
      environment: { ...fetchFunctionEnvironment(s, this.pageTable.table.tableName), [ENV.RENDER_FUNCTION_NAME]: this.renderFunction.function.functionName },
      // The PDF reader's worker with pdf.js, and the Lambda client, ship beside index.mjs.
      afterBundling: readerSideFileCommands,
    });
    this.pageTable.grantItemReadWrite(this.fetchFunction.function);
    // The fetch function may invoke the render function (its unqualified ARN only: no versions or
    // aliases, no wildcard), and nothing else may.
    this.fetchFunction.role.addToPolicy(
      new iam.PolicyStatement({ sid: "InvokeRenderFunction", actions: ["lambda:InvokeFunction"], resources: [this.renderFunction.function.functionArn] }),
    );

    this.searchFunction = new ApiFunction(this, "Search", {
      ...common,
      entry: path.join(functionsDir, "search", "handler.ts"),
      serviceName: "webgate-search",
      route: "search",
      callsSearchProviders: true,
      memoryMb: s.search.memoryMb,
      timeoutS: s.search.timeoutS,
      reservedConcurrency: s.search.reservedConcurrency,
      environment: searchFunctionEnvironment(s, this.providerSecret.secret.secretArn),
    });
    this.providerSecret.grantReadValue(this.searchFunction.function);

    // /mcp runs both tools in one function: the fetch settings (the heavier of the two: page
    // conversion and the store) and both configurations; IAM: the page table, the provider
    // secret and invoking the render function, nothing else.
    this.mcpFunction = new ApiFunction(this, "Mcp", {
      ...common,
      entry: path.join(functionsDir, "mcp", "handler.ts"),
      serviceName: "webgate-mcp",
      route: "mcp",
      callsSearchProviders: true,
      memoryMb: s.fetch.memoryMb,
      timeoutS: s.fetch.timeoutS,
      reservedConcurrency: s.fetch.reservedConcurrency,
      // Both tools in one function: the fetch function's variables and the search function's.
      environment: {
        ...fetchFunctionEnvironment(s, this.pageTable.table.tableName),
        [ENV.RENDER_FUNCTION_NAME]: this.renderFunction.function.functionName,
        ...searchFunctionEnvironment(s, this.providerSecret.secret.secretArn),
      },
      // The PDF reader's worker with pdf.js, and the Lambda client, ship beside index.mjs.
      afterBundling: readerSideFileCommands,
    });
    this.pageTable.grantItemReadWrite(this.mcpFunction.function);
    this.providerSecret.grantReadValue(this.mcpFunction.function);
    this.mcpFunction.role.addToPolicy(
      new iam.PolicyStatement({ sid: "InvokeRenderFunction", actions: ["lambda:InvokeFunction"], resources: [this.renderFunction.function.functionArn] }),
    );

    const accessLogs = new logs.LogGroup(this, "ApiAccessLogs", { retention: s.logRetentionDays, removalPolicy: dataRemoval });
    this.api = new Api(this, "Api", {
      envName: props.envName,
      fetchFunction: this.fetchFunction.function,
      searchFunction: this.searchFunction.function,
      mcpFunction: this.mcpFunction.function,
      accessLogGroup: accessLogs,
      usagePlan: { rateLimit: s.api.rateLimit, burstLimit: s.api.burstLimit, quotaLimit: s.api.quotaLimit, quotaPeriod: s.api.quotaPeriod },
      stageThrottle: { rateLimit: s.api.stageRateLimit, burstLimit: s.api.stageBurstLimit },
      accountCloudWatchRole: s.apiGatewayAccountRole,
      accountCloudWatchRoleRemovalPolicy: dataRemoval,
    });

    if (s.waf.enabled) {
      this.waf = new Waf(this, "Waf", { envName: props.envName, stageArn: this.api.restApi.deploymentStage.stageArn, ipRateLimitPer5Min: s.waf.ipRateLimitPer5Min });
    } else {
      Validations.of(this.api.restApi).acknowledge({
        id: "AwsSolutions-APIG3",
        reason:
          "WAF is off in this environment by choice (cdk.json waf.enabled, on in retained environments): it costs a fixed monthly fee; callers still need an API key with per-key throttling and quotas, stage throttling applies, and bodies over 16 KiB are refused by the handlers.",
      });
    }
    if (s.dnsFirewall.enabled) {
      this.dnsFirewall = new DnsFirewall(this, "DnsFirewall", {
        vpc: this.network.vpc,
        subnets: this.network.functionSubnets,
        securityGroup: this.network.functionSecurityGroup,
        logRetentionDays: s.logRetentionDays,
        logRemovalPolicy: dataRemoval,
      });
    }

    this.observability = new Observability(this, "Observability", {
      envName: props.envName,
      restApi: this.api.restApi,
      // Every function of the stack, found in its tree: a function added above gets its alarms
      // with no change here (one created after this point fails the synth, below).
      functions: this.node.findAll().filter((c): c is ApiFunction => c instanceof ApiFunction),
      table: this.pageTable.table,
      natGatewayIds: this.network.natGatewayIds,
      ownFaultRatePercent: s.alarms.serverErrorRatePercent,
      durationP99PercentOfTimeout: s.alarms.durationP99PercentOfTimeout,
      providerFailuresPer5Min: s.alarms.providerFailuresPer5Min,
      ...(s.alarms.topicArn !== undefined ? { alarmTopicArn: s.alarms.topicArn } : {}),
      ...(s.alarms.email !== undefined ? { alarmEmail: s.alarms.email } : {}),
      ...(this.waf ? { wafWebAclName: this.waf.metricPrefix } : {}),
    });

    this.node.addValidation({
      validate: () =>
        this.node
          .findAll()
          .filter((c): c is ApiFunction => c instanceof ApiFunction && !this.observability.functions.includes(c))
          .map((fn) => `${fn.node.path}: created after the Observability construct, so it has no alarms; create it before`),
    });

    // Every log group of the stack follows the environment's logRetentionDays and CloudWatch
    // Logs' default encryption; Control Tower asks for a year and a customer-managed key.
    Validations.of(this).acknowledge({
      id: "cdk-validator-cfnguard::cloudwatch_log_group_retention_period_check",
      reason:
        "Retention is a per-environment choice (cdk.json logRetentionDays: 14 days in dev, 90 in prod): the logs hold request hosts and client addresses and are kept only as long as operations need them, which also bounds their storage cost.",
    });
    Validations.of(this).acknowledge({
      id: "cdk-validator-cfnguard::cloudwatch_log_group_encrypted_check",
      reason:
        "CloudWatch Logs encrypts every log group at rest with service-managed keys; by design no secret, page content or query string is logged, so a customer-managed key (USD 1 a month each, plus a key policy for CloudWatch) would add cost and no protection.",
    });

    new CfnOutput(this, "ApiUrl", { value: this.api.restApi.url, description: "Base URL of the API (append fetch or search)" });
    new CfnOutput(this, "ApiKeyId", {
      value: this.api.apiKey.keyId,
      description: "Id of the first consumer's API key; read its value with aws apigateway get-api-key --include-value",
    });
    new CfnOutput(this, "UsagePlanId", { value: this.api.usagePlan.usagePlanId, description: "Usage plan for new consumer keys (scripts/create-api-key.ts)" });
    new CfnOutput(this, "ProviderSecretArn", { value: this.providerSecret.secret.secretArn, description: "Set the provider keys here with put-secret-value" });
    new CfnOutput(this, "PageTableName", { value: this.pageTable.table.tableName });
  }

  /**
   * The zones cdk.json fixes for an environment with an account and a region; else CDK's own.
   * CDK's getter looks the account's zones up for such a stack (ec2.Vpc asks it to check the
   * given zones), and that lookup needs AWS credentials: `npm run synth` must run offline, so a
   * stack whose zones are fixed answers with them (CDK's documented override).
   */
  override get availabilityZones(): string[] {
    return this.fixedZones !== undefined ? [...this.fixedZones] : super.availabilityZones;
  }
}
