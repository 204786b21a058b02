/**
 * Stands in, inside the Lambda bundles only, for `@aws-sdk/client-lambda` (infra/bundling.ts
 * aliases it here). The real client is bundled on its own as lambda-client.mjs beside index.mjs
 * (lambda-client-entry.ts) and imported on the first `send`, that is the first render: the
 * Lambda client's generated schemas and error classes (85 KB, kept whole by esbuild) are then no
 * part of the fetch and MCP functions' cold start, which renders do not need. The first render
 * pays for loading it once (tens of milliseconds beside a browser render of seconds).
 *
 * Only what shared/render/lambda-renderer.ts uses is here: a client built with its
 * configuration and `send(new InvokeCommand(input), { abortSignal })`. Both go to the real SDK
 * objects unchanged, so the SDK's requests, retries, errors and abort handling are its own. A
 * bundle that used anything else of the package would fail to build (esbuild: no such export).
 * Should the file be missing, `send` rejects like a failed invoke, which the renderer answers
 * with `render_unavailable`. Tests and `npm start` run unbundled, with the package itself.
 */
import type * as Sdk from "@aws-sdk/client-lambda";

/** Resolved beside the running bundle; a request esbuild leaves external (FUNCTION_BUNDLING). */
const LAMBDA_CLIENT_FILE = "./lambda-client.mjs";

let sdk: Promise<typeof Sdk> | undefined;

function loadSdk(): Promise<typeof Sdk> {
  return (sdk ??= import(LAMBDA_CLIENT_FILE) as Promise<typeof Sdk>);
}

/** `InvokeCommand`: its input, handed to the real command at `send`. */
export class InvokeCommand {
  constructor(readonly input: Sdk.InvokeCommandInput) {}
}

/** `LambdaClient`: the real client, built with the same configuration on the first `send`. */
export class LambdaClient {
  #client: Promise<{ module: typeof Sdk; client: Sdk.LambdaClient }> | undefined;

  constructor(private readonly configuration: Sdk.LambdaClientConfig) {}

  async send(command: InvokeCommand, options?: { abortSignal?: AbortSignal }): Promise<Sdk.InvokeCommandOutput> {
    this.#client ??= loadSdk().then((module) => ({ module, client: new module.LambdaClient(this.configuration) }));
    const { module, client } = await this.#client;
    return client.send(new module.InvokeCommand(command.input), options);
  }
}
