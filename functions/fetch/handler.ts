/**
 * Lambda entry point for /fetch. Configuration is parsed and every client built once, at cold
 * start: a bad environment fails the init with the list of problems, not the first request.
 */
import { createDynamoClient } from "../../shared/cache/dynamo-client";
import { loadConfig } from "../../shared/config";
import { createFetchHandler } from "../../shared/fetch/fetch-route";

const config = loadConfig();

export const handler = createFetchHandler({
  config,
  dynamo: createDynamoClient({ endpoint: config.store.endpoint }),
});
