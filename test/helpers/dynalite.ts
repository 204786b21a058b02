/**
 * Test access to the DynamoDB emulator: one dynalite per test file, a fresh table name per test,
 * and a client that counts the commands it sends (to prove which reads happened).
 */
import { randomBytes } from "node:crypto";
import { CreateTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { startLocalDynamo } from "../../scripts/lib/local-dynamo";
import type { LocalDynamo } from "../../scripts/lib/local-dynamo";
import { createDynamoClient } from "../../shared/cache/dynamo-client";
import { createTableInput } from "../../shared/cache/table";

export type { LocalDynamo };

/** Starts the emulator on 127.0.0.1 with a throwaway table. */
export function startTestDynamo(tableName = "webgate-test"): Promise<LocalDynamo> {
  return startLocalDynamo({ tableName });
}

/** Creates another table on the same emulator (tests stay independent without restarts). */
export async function createTestTable(client: DynamoDBClient): Promise<string> {
  const tableName = `t-${randomBytes(6).toString("hex")}`;
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  return tableName;
}

/** A client for `endpoint` whose sent command names are recorded in `calls`, in order. */
export function countingClient(endpoint: string): { client: DynamoDBClient; calls: string[] } {
  const client = createDynamoClient({ endpoint, region: "us-east-1" });
  const calls: string[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      calls.push(String(context.commandName));
      return next(args);
    },
    { step: "initialize", name: "countCommands" },
  );
  return { client, calls };
}
