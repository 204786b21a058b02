/**
 * One API Lambda function as webgate deploys it: NodejsFunction bundled by the locally installed
 * esbuild (no Docker), Node.js 22 on arm64, inside the VPC's function subnets with the
 * locked-down security group, its own log group with a retention, and the Powertools settings.
 */
import { Aws, Duration, type RemovalPolicy, Validations } from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import type * as ec2 from "aws-cdk-lib/aws-ec2";
import * as lambda from "aws-cdk-lib/aws-lambda";
import * as nodejs from "aws-cdk-lib/aws-lambda-nodejs";
import * as logs from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { METRICS_NAMESPACE } from "../../shared/observability/metric-names";
import { FUNCTION_BUNDLING, bundleDataFileCommands } from "../bundling";

/** The actions of AWS's AWSLambdaVPCAccessExecutionRole: ENI management for VPC functions. */
export const VPC_ENI_ACTIONS = [
  "ec2:CreateNetworkInterface",
  "ec2:DescribeNetworkInterfaces",
  "ec2:DescribeSubnets",
  "ec2:DeleteNetworkInterface",
  "ec2:AssignPrivateIpAddresses",
  "ec2:UnassignPrivateIpAddresses",
] as const;

/**
 * The environment of the `npm ci` NodejsFunction runs in the asset for `nodeModules`: tarballs
 * come from npm's cache when it has them (the project's own `npm ci` put them there, so a synth
 * needs no network then; a cold cache still downloads), and no audit, funding or update-check
 * requests are made.
 */
export const NODE_MODULES_INSTALL_ENV: Readonly<Record<string, string>> = {
  npm_config_prefer_offline: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
  npm_config_loglevel: "error",
};

export interface ApiFunctionProps {
  /** Absolute path of the handler file; it exports `handler`. */
  entry: string;
  /** Absolute path of package-lock.json (the bundling's project root is its directory). */
  depsLockFilePath: string;
  /** Powertools service name (logs' `service` key and the metrics' `service` dimension). */
  serviceName: string;
  /**
   * The `route` its handler passes to createApiHandler (shared/middleware/api-handler.ts), for
   * the alarm on its own faults; unset for a function the API does not call (e.g. one invoked
   * by another function), which then gets the Lambda-level alarms only.
   */
  route?: string;
  /** Its handler calls the search providers (emits ProviderCalls): adds per-provider failure alarms. */
  callsSearchProviders?: boolean;
  memoryMb: number;
  timeoutS: number;
  reservedConcurrency: number;
  logRetentionDays: number;
  logRemovalPolicy: RemovalPolicy;
  vpc: ec2.IVpc;
  subnets: ec2.SubnetSelection;
  securityGroup: ec2.ISecurityGroup;
  environment: Record<string, string>;
  /** @default arm64 (a function whose native binary exists for x86_64 only says so) */
  architecture?: lambda.Architecture;
  /**
   * Packages installed into the function's asset instead of bundled (a native binary shipped in
   * an npm package, such as a Lambda-packaged Chromium). @default none
   */
  nodeModules?: string[];
  /** Shell commands NodejsFunction runs after bundling, to add files to the asset (the PDF worker). */
  afterBundling?: (inputDir: string, outputDir: string) => string[];
}

export class ApiFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly serviceName: string;
  readonly route: string | undefined;
  readonly callsSearchProviders: boolean;
  readonly timeout: Duration;
  readonly logGroup: logs.LogGroup;
  /** The execution role: only its own log group and the VPC network interfaces. */
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    this.serviceName = props.serviceName;
    this.route = props.route;
    this.callsSearchProviders = props.callsSearchProviders ?? false;
    this.timeout = Duration.seconds(props.timeoutS);
    // An explicit log group (rather than the LogRetention custom resource) sets the retention
    // without deploying a helper Lambda.
    this.logGroup = new logs.LogGroup(this, "Logs", {
      retention: props.logRetentionDays,
      removalPolicy: props.logRemovalPolicy,
    });
    // Our own role instead of the AWS managed AWSLambdaBasicExecutionRole and
    // AWSLambdaVPCAccessExecutionRole, which grant logs actions on every log group.
    this.role = new iam.Role(this, "Role", {
      assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"),
      description: `${props.serviceName}: own log group and VPC network interfaces only`,
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: "OwnLogGroup",
        actions: ["logs:CreateLogStream", "logs:PutLogEvents"],
        resources: [this.logGroup.logGroupArn],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: "VpcNetworkInterfaces",
        actions: [...VPC_ENI_ACTIONS],
        resources: ["*"],
      }),
    );
    // Lambda's own service uses these actions with this role to attach the function's ENIs;
    // code running inside the function (which parses hostile pages) must not, or a code
    // execution bug could create interfaces in other subnets or strip the VPC's addressing.
    // Lambda sets lambda:SourceFunctionArn only on calls made with the credentials it hands to
    // the function's code, so this deny leaves the service's own calls alone (the pattern of
    // AWS's "Using the lambda:SourceFunctionArn condition key" for VPC functions).
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: "NoNetworkInterfacesFromFunctionCode",
        effect: iam.Effect.DENY,
        actions: [...VPC_ENI_ACTIONS, "ec2:DetachNetworkInterface"],
        resources: ["*"],
        // Any function of this account and region: the role has no other principal, and naming the
        // function's own ARN would make the role's policy depend on the function it serves.
        conditions: { ArnLike: { "lambda:SourceFunctionArn": `arn:${Aws.PARTITION}:lambda:${Aws.REGION}:${Aws.ACCOUNT_ID}:function:*` } },
      }),
    );
    Validations.of(this.role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "Resource * only on the EC2 network-interface actions Lambda needs to attach a function to a VPC: these Describe/Create/Delete calls support no resource-level scoping for Lambda's ENIs (the AWSLambdaVPCAccessExecutionRole managed policy has the same statement). No wildcard action anywhere.",
    });

    this.function = new nodejs.NodejsFunction(this, "Function", {
      role: this.role,
      entry: props.entry,
      handler: "handler",
      depsLockFilePath: props.depsLockFilePath,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: props.architecture ?? lambda.Architecture.ARM_64,
      memorySize: props.memoryMb,
      timeout: this.timeout,
      reservedConcurrentExecutions: props.reservedConcurrency,
      vpc: props.vpc,
      vpcSubnets: props.subnets,
      securityGroups: [props.securityGroup],
      allowPublicSubnet: false,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      environment: {
        ...props.environment,
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        NODE_OPTIONS: "--enable-source-maps",
      },
      bundling: {
        forceDockerBundling: false,
        // The one description the bench builds with too (infra/bundling.ts), so they cannot drift.
        minify: FUNCTION_BUNDLING.minify,
        sourceMap: FUNCTION_BUNDLING.sourceMap,
        sourcesContent: FUNCTION_BUNDLING.sourcesContent,
        target: FUNCTION_BUNDLING.target,
        format: FUNCTION_BUNDLING.format === "esm" ? nodejs.OutputFormat.ESM : nodejs.OutputFormat.CJS,
        mainFields: [...FUNCTION_BUNDLING.mainFields],
        banner: FUNCTION_BUNDLING.banner,
        externalModules: [...FUNCTION_BUNDLING.externalModules],
        ...(props.nodeModules && props.nodeModules.length > 0 ? { nodeModules: [...props.nodeModules], environment: NODE_MODULES_INSTALL_ENV } : {}),
        // NodejsFunction has no alias prop; esbuildArgs passes each as `--alias:from=to`.
        esbuildArgs: { "--alias": Object.entries(FUNCTION_BUNDLING.alias).map(([from, to]) => `${from}=${to}`) },
        // Every asset gets the data files the bundles load from beside index.mjs (infra/bundling.ts).
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir, outputDir) => [...bundleDataFileCommands(inputDir, outputDir), ...(props.afterBundling?.(inputDir, outputDir) ?? [])],
        },
      },
    });
    Validations.of(this.function).acknowledge({
      id: "AwsSolutions-L1",
      reason:
        "Node.js 22 is the runtime the design fixes (issue 5) and the one the code is tested for; it is supported by Lambda until 2027. Moving to 24 is a deliberate upgrade, not a synth-time default.",
    });
  }

  /** Lets `grantee` (e.g. another function's role) invoke this function, and nothing else. */
  grantInvoke(grantee: iam.IGrantable): iam.Grant {
    return this.function.grantInvoke(grantee);
  }
}
