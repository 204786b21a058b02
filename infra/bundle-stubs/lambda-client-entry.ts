/**
 * The entry of lambda-client.mjs, the side bundle that carries the AWS SDK's Lambda client for
 * the functions that invoke the render function (infra/bundling.ts, LAMBDA_CLIENT_BUNDLE). Their
 * own bundles import it through lambda-client-loader.ts on the first render.
 */
export { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
