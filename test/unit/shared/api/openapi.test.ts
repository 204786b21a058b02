import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_SERVERS, buildOpenApiDocument } from "../../../../shared/api/openapi";

type Operation = { responses: Record<string, { description: string }> };
const doc = buildOpenApiDocument() as { servers: unknown; paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(doc.paths).flatMap(([route, methods]) => Object.entries(methods).map(([method, op]) => [`${method} ${route}`, op] as const));

describe("the OpenAPI document", () => {
  it("names the servers it is given, npm start's default otherwise", () => {
    expect(doc.servers).toEqual(DEFAULT_SERVERS);
    const served = buildOpenApiDocument({ servers: [{ url: "http://127.0.0.1:9999", description: "npm start" }] });
    expect(served.servers).toEqual([{ url: "http://127.0.0.1:9999", description: "npm start" }]);
  });

  it.each(operations)("%s declares the size, routing, throttling and internal answers", (_name, op) => {
    for (const status of ["403", "404", "405", "413", "429", "500"]) expect(Object.keys(op.responses)).toContain(status);
  });

  it.each(operations)("%s: every description is a whole sentence", (_name, op) => {
    for (const [status, response] of Object.entries(op.responses)) {
      expect(response.description, status).toMatch(/[^ ,]\.$/);
      expect(response.description, status).not.toMatch(/ or \.|, \./);
    }
  });
});

describe("a client generated with openapi-typescript's defaults", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "webgate-openapi-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const fetchBody = `paths["/fetch"]["post"]["requestBody"]["content"]["application/json"]`;
  const searchBody = `paths["/search"]["post"]["requestBody"]["content"]["application/json"]`;
  const fetchQuery = `NonNullable<paths["/fetch"]["get"]["parameters"]["query"]>`;
  const clients = {
    minimal: [`const a: ${fetchBody} = { url: "https://example.com/" };`, `const b: ${searchBody} = { query: "rivers" };`, `const c: ${fetchQuery} = { url: "https://example.com/" };`, "void a; void b; void c;"].join("\n"),
    missingUrl: `const a: ${fetchBody} = { max_chars: 2000 };\nvoid a;`,
  };

  /**
   * Type-checks every client against the generated types in one TypeScript program (each program
   * loads the standard library again, seconds of CPU); returns each client's diagnostics.
   */
  let checked: Promise<Record<keyof typeof clients, string[]>> | undefined;
  function typeCheck(): Promise<Record<keyof typeof clients, string[]>> {
    checked ??= (async () => {
      writeFileSync(path.join(dir, "api.ts"), astToString(await openapiTS(buildOpenApiDocument() as never)));
      const files = Object.fromEntries(Object.keys(clients).map((name) => [name, path.join(dir, `${name}.ts`)])) as Record<keyof typeof clients, string>;
      for (const [name, file] of Object.entries(files)) writeFileSync(file, `import type { paths } from "./api";\n${clients[name as keyof typeof clients]}\n`);
      const program = ts.createProgram(Object.values(files), { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, skipLibCheck: true });
      const messages = (file: string) => ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      // The generated file itself must type-check too: its diagnostics count against the minimal call.
      return { minimal: [...messages(path.join(dir, "api.ts")), ...messages(files.minimal)], missingUrl: messages(files.missingUrl) };
    })();
    return checked;
  }

  it("accepts the minimal calls: fields with defaults stay optional", async () => {
    expect((await typeCheck()).minimal).toEqual([]);
  }, 60_000);

  it("still refuses a call without the required field (the check can fail)", async () => {
    expect((await typeCheck()).missingUrl.join("\n")).toMatch(/url/);
  }, 60_000);
});
