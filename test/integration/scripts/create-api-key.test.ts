import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createApiKey, main } from "../../../scripts/create-api-key";

/**
 * A stand-in for the AWS CLI (an executable run through execFile like the real one) that
 * records its arguments and answers as API Gateway and CloudFormation would. No AWS is reached.
 */
const dir = mkdtempSync(path.join(tmpdir(), "webgate-fake-aws-"));
const cli = path.join(dir, "aws");
const log = path.join(dir, "calls.jsonl");
const mode = path.join(dir, "mode");
writeFileSync(
  cli,
  `#!/usr/bin/env node
const fs = require("node:fs");
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + "\\n");
const mode = fs.readFileSync(${JSON.stringify(mode)}, "utf8");
const cmd = args.slice(0, 2).join(" ");
if (cmd === "cloudformation describe-stacks") {
  console.log(JSON.stringify([{ OutputKey: "ApiUrl", OutputValue: "https://x/v1/" }, { OutputKey: "UsagePlanId", OutputValue: "plan42" }]));
} else if (cmd === "apigateway create-api-key") {
  console.log(JSON.stringify({ id: "key123", name: args[3], enabled: true }));
} else if (cmd === "apigateway create-usage-plan-key") {
  if (mode === "attach-fails") { console.error("An error occurred (NotFoundException): Invalid Usage Plan ID specified"); process.exit(254); }
  console.log(JSON.stringify({ id: "key123", type: "API_KEY" }));
} else if (cmd === "apigateway delete-api-key") {
  console.log("{}");
} else if (cmd === "apigateway get-api-key") {
  console.log(JSON.stringify({ id: "key123", value: "the-secret-value" }));
} else { console.error("unexpected " + cmd); process.exit(2); }
`,
);
chmodSync(cli, 0o755);

const calls = () =>
  readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as string[]);

beforeEach(() => {
  writeFileSync(log, "");
  writeFileSync(mode, "ok");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("createApiKey", () => {
  it("finds the usage plan from the stack outputs, creates the key and attaches it", async () => {
    const key = await createApiKey({ name: "acme-agent", stack: "webgate-dev", region: "eu-west-1", awsCli: cli });
    expect(key).toEqual({ keyId: "key123", usagePlanId: "plan42", name: "acme-agent" });
    const c = calls();
    expect(c.map((a) => a.slice(0, 2).join(" "))).toEqual(["cloudformation describe-stacks", "apigateway create-api-key", "apigateway create-usage-plan-key"]);
    expect(c[2]).toEqual(["apigateway", "create-usage-plan-key", "--usage-plan-id", "plan42", "--key-id", "key123", "--key-type", "API_KEY", "--output", "json", "--region", "eu-west-1"]);
    expect(c[1]).toContain("--enabled");
  });

  it("deletes the new key again when attaching it fails", async () => {
    writeFileSync(mode, "attach-fails");
    await expect(createApiKey({ name: "acme", usagePlanId: "plan42", awsCli: cli })).rejects.toThrow(/create-usage-plan-key failed: .*Invalid Usage Plan ID/);
    expect(calls().at(-1)).toEqual(["apigateway", "delete-api-key", "--api-key", "key123", "--output", "json"]);
  });

  it.each([
    [{ name: "bad name; rm -rf /", usagePlanId: "plan42" }, /--name must be/],
    [{ name: "ok" }, /give --usage-plan-id or --stack/],
    [{ name: "ok", usagePlanId: "--help" }, /not a usage plan id/],
  ])("refuses bad input before calling AWS: %j", async (opts, message) => {
    await expect(createApiKey({ ...opts, awsCli: cli })).rejects.toThrow(message);
    expect(readFileSync(log, "utf8")).toBe("");
  });
});

describe("command line", () => {
  it("prints the key id and how to read the value, never the value by default", async () => {
    const lines: string[] = [];
    expect(await main(["--name", "acme", "--usage-plan-id", "plan42", "--aws-cli", cli], (l) => lines.push(l))).toBe(0);
    expect(lines.join("\n")).toContain("created API key key123 for acme, attached to usage plan plan42");
    expect(lines.join("\n")).not.toContain("the-secret-value");
    expect(calls().some((a) => a[1] === "get-api-key")).toBe(false);
  });

  it("prints the value with --show-value", async () => {
    const lines: string[] = [];
    expect(await main(["--name", "acme", "--usage-plan-id", "plan42", "--aws-cli", cli, "--show-value"], (l) => lines.push(l))).toBe(0);
    expect(lines).toContain("value: the-secret-value");
  });

  it("exits 2 on missing arguments and 1 on an AWS failure", async () => {
    const lines: string[] = [];
    expect(await main([], (l) => lines.push(l))).toBe(2);
    writeFileSync(mode, "attach-fails");
    expect(await main(["--name", "acme", "--usage-plan-id", "plan42", "--aws-cli", cli], (l) => lines.push(l))).toBe(1);
  });
});
