/**
 * One ApiFunction synthesized alone into `outdir` (a throwaway stack with an isolated subnet, no
 * cdk-nag, no other function), so a test pays for one bundling only, and the directory of the
 * asset NodejsFunction built for it.
 */
import { existsSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { App, RemovalPolicy, Stack } from "aws-cdk-lib";
import * as ec2 from "aws-cdk-lib/aws-ec2";
import { BUNDLE_FILE_NAME } from "../../infra/bundling";
import { ApiFunction, type ApiFunctionProps } from "../../infra/constructs/api-function";
import { REPO_ROOT } from "../../infra/webgate-stack";

/** What differs between the functions the bundling tests build: the rest is fixed here. */
export type FunctionAssetProps = Pick<ApiFunctionProps, "entry" | "serviceName" | "memoryMb" | "timeoutS"> &
  Partial<Pick<ApiFunctionProps, "architecture" | "nodeModules" | "afterBundling">>;

export function synthFunctionAsset(outdir: string, props: FunctionAssetProps): string {
  const app = new App({ outdir });
  const stack = new Stack(app, "FunctionAssetCheck");
  const vpc = new ec2.Vpc(stack, "Vpc", { natGateways: 0, subnetConfiguration: [{ name: "functions", subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
  new ApiFunction(stack, "Function", {
    ...props,
    depsLockFilePath: path.join(REPO_ROOT, "package-lock.json"),
    reservedConcurrency: 1,
    logRetentionDays: 1,
    logRemovalPolicy: RemovalPolicy.DESTROY,
    vpc,
    subnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    securityGroup: new ec2.SecurityGroup(stack, "Sg", { vpc }),
    environment: {},
  });
  app.synth();
  const assets = readdirSync(outdir).filter((d) => d.startsWith("asset.") && existsSync(path.join(outdir, d, BUNDLE_FILE_NAME)));
  if (assets.length !== 1) throw new Error(`expected one function asset in ${outdir}, found ${assets.length}`);
  return path.join(outdir, assets[0]!);
}
