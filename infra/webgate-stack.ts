/**
 * One webgate environment: network, page table, provider secret, the two functions, the API and
 * its observability. The stack only wires the constructs together; each concern lives in
 * infra/constructs/. Environment-agnostic (no account or region), so it synthesizes offline.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from "aws-cdk-lib";
import * as logs from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { Api } from "./constructs/api";
import { ApiFunction } from "./constructs/api-function";
import { Network } from "./constructs/network";
import { Observability } from "./constructs/observability";
import { PageTable } from "./constructs/page-table";
import { ProviderSecret } from "./constructs/provider-secret";
import { fetchFunctionEnvironment, searchFunctionEnvironment, type EnvironmentSettings } from "./environments";

/** The repository root (infra/ is one level down). */
export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface WebgateStackProps extends StackProps {
  envName: string;
  settings: EnvironmentSettings;
  /**
   * Directory holding `fetch/handler.ts` and `search/handler.ts`.
   * @default `<repo>/functions`
   */
  functionsDir?: string;
}

export class WebgateStack extends Stack {
  readonly network: Network;
  readonly pageTable: PageTable;
  readonly providerSecret: ProviderSecret;
  readonly fetchFunction: ApiFunction;
  readonly searchFunction: ApiFunction;
  readonly api: Api;
  readonly observability: Observability;

  constructor(scope: Construct, id: string, props: WebgateStackProps) {
    super(scope, id, props);
    const s = props.settings;
    const functionsDir = props.functionsDir ?? path.join(REPO_ROOT, "functions");
    const dataRemoval = s.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.network = new Network(this, "Network", {
      cidr: s.vpcCidr,
      natGateways: s.natGateways,
      logRetentionDays: s.logRetentionDays,
      removalPolicy: dataRemoval,
    });
    this.pageTable = new PageTable(this, "PageTable", { removalPolicy: dataRemoval });
    this.providerSecret = new ProviderSecret(this, "ProviderSecret");

    const common = {
      depsLockFilePath: path.join(REPO_ROOT, "package-lock.json"),
      logRetentionDays: s.logRetentionDays,
      logRemovalPolicy: dataRemoval,
      vpc: this.network.vpc,
      subnets: this.network.functionSubnets,
      securityGroup: this.network.functionSecurityGroup,
    };
    this.fetchFunction = new ApiFunction(this, "Fetch", {
      ...common,
      entry: path.join(functionsDir, "fetch", "handler.ts"),
      serviceName: "webgate-fetch",
      memoryMb: s.fetch.memoryMb,
      timeoutS: s.fetch.timeoutS,
      reservedConcurrency: s.fetch.reservedConcurrency,
      environment: fetchFunctionEnvironment(s, this.pageTable.table.tableName),
    });
    this.pageTable.grantItemReadWrite(this.fetchFunction.function);

    this.searchFunction = new ApiFunction(this, "Search", {
      ...common,
      entry: path.join(functionsDir, "search", "handler.ts"),
      serviceName: "webgate-search",
      memoryMb: s.search.memoryMb,
      timeoutS: s.search.timeoutS,
      reservedConcurrency: s.search.reservedConcurrency,
      environment: searchFunctionEnvironment(s, this.providerSecret.secret.secretArn),
    });
    this.providerSecret.grantReadValue(this.searchFunction.function);

    const accessLogs = new logs.LogGroup(this, "ApiAccessLogs", { retention: s.logRetentionDays, removalPolicy: dataRemoval });
    this.api = new Api(this, "Api", {
      envName: props.envName,
      fetchFunction: this.fetchFunction.function,
      searchFunction: this.searchFunction.function,
      accessLogGroup: accessLogs,
      usagePlan: { rateLimit: s.api.rateLimit, burstLimit: s.api.burstLimit, quotaLimit: s.api.quotaLimit, quotaPeriod: s.api.quotaPeriod },
      stageThrottle: { rateLimit: s.api.stageRateLimit, burstLimit: s.api.stageBurstLimit },
    });

    this.observability = new Observability(this, "Observability", {
      envName: props.envName,
      restApi: this.api.restApi,
      functions: { fetch: this.fetchFunction.function, search: this.searchFunction.function },
      table: this.pageTable.table,
      serverErrorRatePercent: s.alarms.serverErrorRatePercent,
      alarmTopicArn: s.alarms.topicArn,
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
}
