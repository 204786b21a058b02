/**
 * Lambda entry point for /fetch. Configuration is parsed and every client built once, at cold
 * start: a bad environment fails the init with the list of problems, not the first request.
 */
import { createDynamoClient } from "../../shared/cache/dynamo-client";
import { loadFetchFunctionConfig } from "../../shared/config";
import { createFetchHandler } from "../../shared/fetch/fetch-route";
import { deployedRenderer } from "../../shared/render/lambda-renderer";

// The dev switch WEBGATE_ALLOW_LOCALHOST lets callers reach loopback on any port;
// inside Lambda that is the runtime API on 127.0.0.1:9001 (other invocations' events and the
// function's own response path). It is for the local server only, so a function that has it set
// refuses to start, with every other problem of the environment in the same error.
const config = loadFetchFunctionConfig();

export const handler = createFetchHandler({
  config,
  dynamo: createDynamoClient({ endpoint: config.store.endpoint }),
  renderer: deployedRenderer(config),
});
