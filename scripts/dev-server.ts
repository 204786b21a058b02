/**
 * `npm start`: serves the API on http://127.0.0.1:$PORT (default 8787) with an in-process
 * DynamoDB emulator. No AWS account needed. See the README for the environment variables.
 */
// The SDK warns on every start that its future releases will need Node.js 22; Lambda runs 22,
// and the warning says nothing a developer can act on locally. Set before the SDK loads.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

async function main(): Promise<void> {
  const { startLocalApi } = await import("./lib/local-api");
  const api = await startLocalApi({ env: process.env });
  process.stdout.write(
    [
      `webgate listening on ${api.url}`,
      `  POST ${api.url}/fetch   GET ${api.url}/fetch?url=…   POST ${api.url}/search   GET ${api.url}/openapi.json`,
      `  page store: ${api.dynamoEndpoint}${process.env.WEBGATE_DYNAMODB_ENDPOINT ? "" : " (in-process emulator, in memory)"}`,
      api.chromium
        ? `  render: ${api.chromium}`
        : `  render: no Chromium found, so render answers render_unavailable (apt-get install chromium, or set WEBGATE_CHROMIUM_PATH)`,
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
  // A configuration error lists every problem; anything else is printed as it is.
  process.stderr.write(`${error instanceof Error && error.name === "ConfigError" ? error.message : String(error)}\n`);
  process.exit(1);
});
