/**
 * The CDK app: `npx cdk synth -c env=dev` / `npx cdk deploy -c env=prod`. Without `-c env`,
 * every environment of cdk.json is synthesized (`npm run synth` checks them all). Each
 * environment's settings come from cdk.json context and are validated before any construct is
 * built; a bad setting prints its message and exits 1, without a stack trace. cdk-nag and
 * cfn-guard (infra/policy-validation.ts) check the result at synth.
 */
import { App } from "aws-cdk-lib";
import { EnvironmentError, resolveEnvironments } from "./environments";
import { addPolicyValidation } from "./policy-validation";
import { WebgateStack } from "./webgate-stack";

const app = new App();
try {
  for (const { name, settings } of resolveEnvironments(app.node.tryGetContext("env"), app.node.tryGetContext("environments"))) {
    new WebgateStack(app, `webgate-${name}`, {
      envName: name,
      settings,
      description: `webgate (${name}): guarded web reader and web search API`,
      tags: { project: "webgate", environment: name },
    });
  }
} catch (error) {
  if (!(error instanceof EnvironmentError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
addPolicyValidation(app);
app.synth();
