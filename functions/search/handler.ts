/**
 * Lambda entry point for /search. Configuration is parsed and every client built once, at cold
 * start: a bad SEARXNG_URL or default provider fails the init with the list of problems.
 */
import { loadConfig } from "../../shared/config";
import { systemResolver } from "../../shared/guard/guarded-lookup";
import { createSearchHandler } from "../../shared/search/search-route";
import { createSecretsManagerClient } from "../../shared/secrets/secrets-manager-client";

const config = loadConfig();

export const handler = createSearchHandler({
  config,
  resolver: systemResolver,
  ...(config.search.secretArn === undefined ? {} : { secretsManager: createSecretsManagerClient() }),
});
