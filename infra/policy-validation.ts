/**
 * The policy checks every synth runs, the CLI's (infra/app.ts) and the tests' alike:
 * - cdk-nag's AwsSolutions pack; each acknowledged rule carries its reason in the code
 *   (`Validations.of(…).acknowledge`);
 * - cfn-guard with the AWS Control Tower proactive rules (@cdklabs/cdk-validator-cfnguard, the
 *   cfn-guard binary ships inside the npm package: offline, no Docker). A guard rule that does not
 *   fit is acknowledged like a cdk-nag one, as `cdk-validator-cfnguard::<rule name>` on the
 *   narrowest construct, with its reason.
 */
import { type App, Validations } from "aws-cdk-lib";
import { CfnGuardValidator } from "@cdklabs/cdk-validator-cfnguard";
import { AwsSolutionsChecks } from "cdk-nag";

export function addPolicyValidation(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new CfnGuardValidator({ controlTowerRulesEnabled: true }));
}
