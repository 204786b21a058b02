/**
 * The /mcp function as CDK bundles it (infra/bundling.ts): only the SDK's server parts are in it
 * (no express, hono or client code), and the bundle itself, loaded in a fresh Node process with a
 * Lambda-like environment, answers an MCP initialize event.
 */
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { BUNDLE_FILE_NAME, esbuildOptions } from "../../infra/bundling";
import { REPO_ROOT } from "../../infra/webgate-stack";
import { ENV } from "../../shared/config";
import { apiGatewayEvent } from "../helpers/apigw-event";
import { CPU_WORK_TIMEOUT_MS } from "../helpers/cpu-work";
import { readMarkedLine, runNodeChild } from "../../scripts/lib/node-child";

const outfile = path.join(REPO_ROOT, "cdk.out", "test-bundle-mcp", BUNDLE_FILE_NAME);

async function runBundle(event: unknown): Promise<{ statusCode: number; body: string; headers: Record<string, string> }> {
  const code = `const { handler } = await import(${JSON.stringify(pathToFileURL(outfile).href)});
const context = { awsRequestId: "req-1", getRemainingTimeInMillis: () => 20000, functionName: "webgate-mcp" };
const result = await handler(JSON.parse(process.env.EVENT), context);
process.stdout.write("\\nRESULT " + JSON.stringify(result) + "\\n");`;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    AWS_REGION: "eu-west-1",
    AWS_ACCESS_KEY_ID: "test",
    AWS_SECRET_ACCESS_KEY: "test",
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    POWERTOOLS_SERVICE_NAME: "webgate-mcp",
    POWERTOOLS_METRICS_NAMESPACE: "Webgate",
    [ENV.TABLE_NAME]: "webgate-dev-pages",
    [ENV.PROVIDER_SECRET_ARN]: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:webgate-dev-providers-AbCdEf",
    EVENT: JSON.stringify(event),
  };
  // The handler's own log line goes to stdout too; the result is the line marked RESULT.
  const run = await runNodeChild({
    args: ["--input-type=module", "-e", code],
    env,
    label: "the bundle",
    read: (out) => readMarkedLine(out, "RESULT") as { statusCode: number; body: string; headers: Record<string, string> } | undefined,
    quote: { stderr: 800, stdout: 400 },
  });
  return run.value;
}

describe("the /mcp bundle", () => {
  it("holds the SDK's server parts only and answers initialize from the bundle", async () => {
    const result = await build({ ...esbuildOptions(path.join(REPO_ROOT, "functions/mcp/handler.ts"), outfile, REPO_ROOT), metafile: true, logLevel: "silent" });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((f) => f.includes("node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js"))).toBe(true);
    for (const unwanted of ["node_modules/express/", "node_modules/hono/", "node_modules/@hono/", "/sdk/dist/esm/client/", "node_modules/eventsource", "node_modules/cross-spawn/"]) {
      expect(inputs.filter((f) => f.includes(unwanted)), unwanted).toEqual([]);
    }
    const answer = await runBundle(
      apiGatewayEvent({
        method: "POST",
        path: "/mcp",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bundle-test", version: "1" } } },
      }),
    );
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "webgate" }, capabilities: { tools: {} } } });
  }, CPU_WORK_TIMEOUT_MS);
});
