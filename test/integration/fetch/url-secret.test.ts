/** WEBGATE_URL_SECRET_CHECK through the whole /fetch handler. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../shared/config";
import { createTestTable, startTestDynamo, type LocalDynamo } from "../../helpers/dynalite";
import { html, startFetchApp } from "../../helpers/fetch-app";

let dynamo: LocalDynamo;
const SECRET_URL = "https://site.example.com/p?k=sk-proj-4fGh7Jk2LmNoPqRsTuVwXyZ01234";

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(async () => {
  await dynamo?.close();
});

async function appWith(env: Record<string, string>) {
  const app = await startFetchApp({ dynamo: dynamo.client, tableName: await createTestTable(dynamo.client), env });
  app.setSite({ "/p?k=sk-proj-4fGh7Jk2LmNoPqRsTuVwXyZ01234": html("<title>t</title><p>page</p>"), "/p?q=plain": html("<title>t</title><p>page</p>") });
  return app;
}

describe("WEBGATE_URL_SECRET_CHECK", () => {
  it("defaults to flag", () => {
    expect(loadConfig({}).fetch.urlSecretCheck).toBe("flag");
    expect(() => loadConfig({ WEBGATE_URL_SECRET_CHECK: "block" })).toThrow(/WEBGATE_URL_SECRET_CHECK=block: must be refuse, flag or off/);
    expect(loadConfig({ WEBGATE_URL_SECRET_CHECK: " Refuse " }).fetch.urlSecretCheck).toBe("refuse");
  });

  it("refuse: 400 url_looks_like_secret before any request leaves, the URL never repeated", async () => {
    const app = await appWith({ WEBGATE_URL_SECRET_CHECK: "refuse" });
    try {
      const { res, json } = await app.post({ url: SECRET_URL });
      expect(res.statusCode).toBe(400);
      expect(json.error.code).toBe("url_looks_like_secret");
      expect(res.body).not.toContain("sk-proj");
      expect(app.resolver.lookups).toEqual([]);
      expect(app.dialer.dials).toEqual([]);
      const line = app.telemetry.lines.at(-1)!;
      expect(line.fields).toMatchObject({ code: "url_looks_like_secret", reason: "key-prefix", host: "site.example.com" });
      expect(JSON.stringify(app.telemetry.lines)).not.toContain("sk-proj");
      const plain = await app.post({ url: "https://site.example.com/p?q=plain" });
      expect(plain.res.statusCode).toBe(200);
      expect(plain.json.warnings).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it("flag (the default): fetches and warns", async () => {
    const app = await appWith({});
    try {
      const { res, json } = await app.post({ url: SECRET_URL });
      expect(res.statusCode).toBe(200);
      expect(json.warnings).toEqual(["url_looks_like_secret"]);
      expect(app.telemetry.lines.at(-1)!.fields).toMatchObject({ url_secret: "key-prefix" });
      const plain = await app.post({ url: "https://site.example.com/p?q=plain" });
      expect(plain.json.warnings).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it("off: no check", async () => {
    const app = await appWith({ WEBGATE_URL_SECRET_CHECK: "off" });
    try {
      const { res, json } = await app.post({ url: SECRET_URL });
      expect(res.statusCode).toBe(200);
      expect(json.warnings).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});
