/**
 * Creates an API key for a new consumer and attaches it to the stack's usage plan:
 *
 *   npm run create-api-key -- --stack webgate-dev --name acme-agent [--show-value]
 *   npm run create-api-key -- --usage-plan-id abc123 --name acme-agent
 *
 * It drives the AWS CLI (v2, already configured with credentials for the account) through
 * execFile, without a shell, rather than @aws-sdk/client-api-gateway, which is not a dependency
 * of this project: the operator who deploys has the CLI anyway. The key's value is printed only
 * with --show-value; by default the script prints the key id and the command that reads it.
 */
import { execFile } from "node:child_process";
import { pathToFileURL } from "node:url";
import { parseArgs, promisify } from "node:util";

export interface CreateApiKeyOptions {
  /** The consumer's name: letters, digits, dot, dash, underscore; becomes the key's name. */
  name: string;
  /** The usage plan id (the UsagePlanId output), or… */
  usagePlanId?: string;
  /** …the stack whose UsagePlanId output to use. */
  stack?: string;
  region?: string;
  /** The AWS CLI executable. */
  awsCli?: string;
}

export interface CreatedApiKey {
  keyId: string;
  usagePlanId: string;
  name: string;
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;
const ID = /^[a-z0-9]{1,32}$/;

/** Runs the AWS CLI with JSON output and returns its parsed stdout. */
async function aws(cli: string, region: string | undefined, args: string[]): Promise<unknown> {
  const full = [...args, "--output", "json", ...(region ? ["--region", region] : [])];
  try {
    const { stdout } = await promisify(execFile)(cli, full, { timeout: 60_000, maxBuffer: 1 << 20 });
    return JSON.parse(stdout) as unknown;
  } catch (err) {
    const e = err as { stderr?: string; message?: string };
    throw new Error(`aws ${args.slice(0, 2).join(" ")} failed: ${(e.stderr ?? e.message ?? String(err)).trim()}`);
  }
}

/**
 * Creates the key and attaches it to the usage plan. If attaching fails, the new key is deleted
 * again so no orphan key that works nowhere is left behind.
 */
export async function createApiKey(options: CreateApiKeyOptions): Promise<CreatedApiKey> {
  if (!NAME.test(options.name)) throw new Error("--name must be 1-64 letters, digits, '.', '-' or '_'");
  const cli = options.awsCli ?? "aws";
  let usagePlanId = options.usagePlanId;
  if (usagePlanId === undefined) {
    if (options.stack === undefined) throw new Error("give --usage-plan-id or --stack");
    const outputs = await aws(cli, options.region, ["cloudformation", "describe-stacks", "--stack-name", options.stack, "--query", "Stacks[0].Outputs"]);
    const found = Array.isArray(outputs) ? (outputs as Array<{ OutputKey?: string; OutputValue?: string }>).find((o) => o.OutputKey === "UsagePlanId") : undefined;
    if (found?.OutputValue === undefined) throw new Error(`stack ${options.stack} has no UsagePlanId output`);
    usagePlanId = found.OutputValue;
  }
  if (!ID.test(usagePlanId)) throw new Error(`not a usage plan id: ${usagePlanId}`);

  const created = (await aws(cli, options.region, ["apigateway", "create-api-key", "--name", options.name, "--enabled", "--description", `webgate consumer ${options.name}`])) as { id?: string };
  if (typeof created.id !== "string") throw new Error("create-api-key returned no id");
  try {
    await aws(cli, options.region, ["apigateway", "create-usage-plan-key", "--usage-plan-id", usagePlanId, "--key-id", created.id, "--key-type", "API_KEY"]);
  } catch (err) {
    await aws(cli, options.region, ["apigateway", "delete-api-key", "--api-key", created.id]).catch(() => undefined);
    throw err;
  }
  return { keyId: created.id, usagePlanId, name: options.name };
}

/** Reads a key's value (only for --show-value). */
export async function readApiKeyValue(keyId: string, options: Pick<CreateApiKeyOptions, "region" | "awsCli"> = {}): Promise<string> {
  const key = (await aws(options.awsCli ?? "aws", options.region, ["apigateway", "get-api-key", "--api-key", keyId, "--include-value"])) as { value?: string };
  if (typeof key.value !== "string") throw new Error("get-api-key returned no value");
  return key.value;
}

const USAGE = "usage: npm run create-api-key -- --name <consumer> (--stack <stack name> | --usage-plan-id <id>) [--region <region>] [--show-value]";

/** The command line: returns the exit code. */
export async function main(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        name: { type: "string" },
        stack: { type: "string" },
        "usage-plan-id": { type: "string" },
        region: { type: "string" },
        "show-value": { type: "boolean", default: false },
        "aws-cli": { type: "string" },
      },
      strict: true,
    }));
  } catch (err) {
    out(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 2;
  }
  if (values.name === undefined) {
    out(USAGE);
    return 2;
  }
  try {
    const opts = { region: values.region, awsCli: values["aws-cli"] };
    const key = await createApiKey({ name: values.name, stack: values.stack, usagePlanId: values["usage-plan-id"], ...opts });
    out(`created API key ${key.keyId} for ${key.name}, attached to usage plan ${key.usagePlanId}`);
    if (values["show-value"]) out(`value: ${await readApiKeyValue(key.keyId, opts)}`);
    else out(`read its value with: aws apigateway get-api-key --api-key ${key.keyId} --include-value --query value --output text`);
    return 0;
  } catch (err) {
    out(err instanceof Error ? err.message : String(err));
    return 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
