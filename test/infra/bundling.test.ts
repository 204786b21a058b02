import * as path from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { BUNDLE_FILE_NAME, FUNCTION_BUNDLING, esbuildOptions } from "../../infra/bundling";
import { REPO_ROOT } from "../../infra/webgate-stack";

describe("function bundling", () => {
  it("maps the shared description onto esbuild options as NodejsFunction's CLI flags do", () => {
    const options = esbuildOptions("/src/handler.ts", "/out/index.mjs", "/src");
    expect(options).toMatchObject({
      entryPoints: ["/src/handler.ts"],
      outfile: "/out/index.mjs",
      absWorkingDir: "/src",
      bundle: true,
      platform: "node",
      target: "node22",
      format: "esm",
      minify: true,
      sourcemap: true,
      sourcesContent: false,
      mainFields: ["module", "main"],
      banner: { js: FUNCTION_BUNDLING.banner },
    });
    expect(options.external).toEqual(["@aws-sdk/*", "@smithy/*"]);
    expect(BUNDLE_FILE_NAME).toBe("index.mjs");
  });

  it("leaves the AWS SDK to the Lambda runtime: imported, not inlined", async () => {
    const result = await build({
      ...esbuildOptions(path.join(REPO_ROOT, "functions/fetch/handler.ts"), path.join(REPO_ROOT, "cdk.out/test-bundle/index.mjs"), REPO_ROOT),
      write: false,
      sourcemap: false,
      logLevel: "silent",
    });
    const code = result.outputFiles.find((f) => f.path.endsWith(".mjs"))!.text;
    expect(code).toMatch(/from\s*"@aws-sdk\/client-dynamodb"/);
    // The DynamoDB client's JSON protocol target prefix lives in the SDK's own code.
    expect(code).not.toContain("DynamoDB_20120810");
    // The banner recreates require() for CommonJS dependencies inside the ESM bundle.
    expect(code.startsWith("import { createRequire as __wgCreateRequire }")).toBe(true);
  });
});
