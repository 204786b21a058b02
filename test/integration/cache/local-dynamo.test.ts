import { DescribeTableCommand, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { createDynamoClient } from "../../../shared/cache/dynamo-client";
import { DynamoPageStore } from "../../../shared/cache/dynamo-page-store";
import { StoreUnavailableError } from "../../../shared/cache/page-store";
import { startLocalDynamo } from "../../../scripts/lib/local-dynamo";

describe("startLocalDynamo", () => {
  it("serves on 127.0.0.1 with the page table ACTIVE, and stops on close", async () => {
    const local = await startLocalDynamo({ tableName: "pages-local" });
    expect(local.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const table = await local.client.send(new DescribeTableCommand({ TableName: "pages-local" }));
    expect(table.Table?.TableStatus).toBe("ACTIVE");
    expect(table.Table?.KeySchema?.map((k) => k.AttributeName)).toEqual(["pk", "sk"]);

    // A second client (as the dev server would build from the endpoint) sees the same table.
    const other = createDynamoClient({ endpoint: local.endpoint });
    expect((await other.send(new ListTablesCommand({}))).TableNames).toEqual(["pages-local"]);
    const store = new DynamoPageStore({ client: other, tableName: "pages-local" });
    await local.close();
    await expect(store.findLatest("k", Date.now())).rejects.toBeInstanceOf(StoreUnavailableError);
    other.destroy();
  });

  it("uses the default table name when none is given", async () => {
    const local = await startLocalDynamo();
    try {
      expect((await local.client.send(new ListTablesCommand({}))).TableNames).toEqual(["webgate-pages"]);
    } finally {
      await local.close();
    }
  });
});
