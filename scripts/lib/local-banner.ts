/**
 * What `npm start` prints when it is up: where it listens, the routes, the page store, whether API
 * keys and the localhost switch are on, and how to stop it. Pure, so tests check the exact text.
 */
import { ENV } from "../../shared/config";

export interface BannerInput {
  url: string;
  dynamoEndpoint: string;
  env: Record<string, string | undefined>;
  pid: number;
  /** The Chromium that `render` uses, or undefined when none was found. */
  chromium?: string | undefined;
}

export function localBanner({ url, dynamoEndpoint, env, pid, chromium }: BannerInput): string {
  const keys = (env[ENV.API_KEYS] ?? "").split(",").filter((key) => key.trim() !== "").length;
  const localhost = ["true", "1"].includes((env[ENV.ALLOW_LOCALHOST] ?? "").trim().toLowerCase());
  return [
    `webgate listening on ${url}`,
    `  POST ${url}/fetch   GET ${url}/fetch?url=…   POST ${url}/search   GET ${url}/openapi.json`,
    `  MCP (Streamable HTTP): ${url}/mcp   tools web_fetch, web_search`,
    `  page store:       ${dynamoEndpoint}${env[ENV.DYNAMODB_ENDPOINT] ? ` (${ENV.DYNAMODB_ENDPOINT})` : " (in-process emulator, in memory)"}`,
    `  API keys:         ${keys === 0 ? `off (set ${ENV.API_KEYS} to require x-api-key)` : `on, ${keys} key${keys === 1 ? "" : "s"} (send x-api-key)`}`,
    `  localhost switch: ${localhost ? `ON (${ENV.ALLOW_LOCALHOST}): URLs on localhost or 127.0.0.1 are reachable (their redirects only on the same port)` : `off (set ${ENV.ALLOW_LOCALHOST}=true to fetch from this machine)`}`,
    `  render:           ${chromium ?? "no Chromium found, so render answers render_unavailable (apt-get install chromium, or set WEBGATE_CHROMIUM_PATH)"}`,
    `  stop with Ctrl-C, or kill ${pid}`,
    "",
  ].join("\n");
}
