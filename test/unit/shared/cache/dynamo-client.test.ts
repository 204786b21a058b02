import { describe, expect, it } from "vitest";
import { DYNAMO_CLIENT_DEFAULTS, createDynamoClient } from "../../../../shared/cache/dynamo-client";

describe("createDynamoClient", () => {
  it("fails fast by default and signs local requests with dummy credentials", async () => {
    const client = createDynamoClient({ endpoint: "http://127.0.0.1:1" });
    try {
      expect(await client.config.maxAttempts()).toBe(DYNAMO_CLIENT_DEFAULTS.maxAttempts);
      expect(await client.config.region()).toBe("us-east-1");
      const credentials = await client.config.credentials();
      expect(credentials.accessKeyId).toBe("local");
      const endpoint = await client.config.endpoint!();
      expect(endpoint.hostname).toBe("127.0.0.1");
    } finally {
      client.destroy();
    }
  });

  it("takes the region and limits it is given", async () => {
    const client = createDynamoClient({ region: "eu-west-1", maxAttempts: 1 });
    try {
      expect(await client.config.region()).toBe("eu-west-1");
      expect(await client.config.maxAttempts()).toBe(1);
      expect(client.config.endpoint).toBeUndefined();
    } finally {
      client.destroy();
    }
  });
});
