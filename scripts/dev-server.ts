/**
 * `npm start`: serves the API on http://127.0.0.1:$PORT (default 8787) with an in-process
 * DynamoDB emulator. No AWS account needed. See the README for the environment variables.
 */
import { ConfigError } from "../shared/config";
import { startLocalApi } from "./lib/local-api";

async function main(): Promise<void> {
  const api = await startLocalApi({ env: process.env });
  process.stdout.write(
    [
      `webgate listening on ${api.url}`,
      `  POST ${api.url}/fetch   GET ${api.url}/fetch?url=…   POST ${api.url}/search   GET ${api.url}/openapi.json`,
      `  page store: ${api.dynamoEndpoint}${process.env.WEBGATE_DYNAMODB_ENDPOINT ? "" : " (in-process emulator, in memory)"}`,
      "",
    ].join("\n"),
  );
  const stop = () => {
    void api.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
});
