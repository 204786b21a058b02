/**
 * Lambda entry point for /mcp (web_fetch and web_search over MCP). Configuration is parsed and
 * every client built once, at cold start, exactly as for /fetch and /search: a bad environment
 * fails the init with the list of problems, not the first request.
 */
import { createDynamoClient } from "../../shared/cache/dynamo-client";
import { ConfigError, ENV, loadConfig } from "../../shared/config";
import { systemResolver } from "../../shared/guard/guarded-lookup";
import { createMcpHandler } from "../../shared/mcp/mcp-route";
import { deployedRenderer } from "../../shared/render/lambda-renderer";
import { createSecretsManagerClient } from "../../shared/secrets/secrets-manager-client";

const config = loadConfig();

// As for /fetch: the loopback switch would let callers reach the Lambda runtime API.
if (config.fetch.allowLocalhost) {
  throw new ConfigError([`${ENV.ALLOW_LOCALHOST}: a local-server switch that must not be set on the Lambda function`]);
}

export const handler = createMcpHandler({
  config,
  dynamo: createDynamoClient({ endpoint: config.store.endpoint }),
  providerResolver: systemResolver,
  renderer: deployedRenderer(config),
  ...(config.search.secretArn === undefined ? {} : { secretsManager: createSecretsManagerClient() }),
});
