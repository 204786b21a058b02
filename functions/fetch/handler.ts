/**
 * Lambda entry point for /fetch. Configuration is parsed and every client built once, at cold
 * start: a bad environment fails the init with the list of problems, not the first request.
 */
import { createDynamoClient } from "../../shared/cache/dynamo-client";
import { loadFetchFunctionConfig } from "../../shared/config";
import { createFetchHandler } from "../../shared/fetch/fetch-route";
import { createLambdaClient, createLambdaRenderer } from "../../shared/render/lambda-renderer";
import { unavailableRenderer } from "../../shared/render/renderer";

// The dev switch WEBGATE_ALLOW_LOCALHOST lets callers reach loopback on any port;
// inside Lambda that is the runtime API on 127.0.0.1:9001 (other invocations' events and the
// function's own response path). It is for the local server only, so a function that has it set
// refuses to start, with every other problem of the environment in the same error.
const config = loadFetchFunctionConfig();

// Rendering runs in the render function, so this function's bundle and cold start carry no
// browser. The invoke may take the render's whole budget plus the render function's start.
const renderFunction = config.render.functionName;
const renderer =
  renderFunction === undefined
    ? unavailableRenderer("Rendering is not deployed in this environment.")
    : createLambdaRenderer({
        client: createLambdaClient({ requestTimeoutMs: config.fetch.timeoutMs + config.render.waitMs + 30_000 }),
        functionName: renderFunction,
        maxBodyBytes: config.fetch.maxResponseBytes,
      });

export const handler = createFetchHandler({
  config,
  dynamo: createDynamoClient({ endpoint: config.store.endpoint }),
  renderer,
});
