/**
 * The CDK app: `npx cdk synth -c env=dev` / `npx cdk deploy -c env=prod`. The environment's
 * settings come from cdk.json context and are validated before any construct is built; cdk-nag's
 * AwsSolutions pack checks the result at synth.
 */
import { App, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { resolveEnvironment } from "./environments";
import { WebgateStack } from "./webgate-stack";

const app = new App();
const { name, settings } = resolveEnvironment(app.node.tryGetContext("env"), app.node.tryGetContext("environments"));
new WebgateStack(app, `webgate-${name}`, {
  envName: name,
  settings,
  description: `webgate (${name}): guarded web reader and web search API`,
  tags: { project: "webgate", environment: name },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
