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

/**
 * Creates another table on the same emulator (tests stay independent without restarts). The
 * call gets a request limit of its own far above the client's fail-fast 2 s: set-up is not under
 * test, and on a loaded machine dynalite took longer than 2 s to create a table (the retry then
 * failed with ResourceInUseException, the first attempt having succeeded after all).
 */
export async function createTestTable(client: DynamoDBClient): Promise<string> {
  const tableName = `t-${randomBytes(6).toString("hex")}`;
  await client.send(new CreateTableCommand(createTableInput(tableName)), { requestTimeout: SETUP_REQUEST_TIMEOUT_MS });
  return tableName;
}

/** The request limit of test set-up calls to the emulator. */
const SETUP_REQUEST_TIMEOUT_MS = 60_000;

/** One command a {@link recordingClient} sent. */
export interface RecordedCall {
  command: string;
  input: Record<string, unknown>;
}

/**
 * A client for `endpoint` that records every command it sends, in order, and can be told to fail
 * a command before it leaves (`failWhen`), to simulate a store that breaks midway.
 */
export function recordingClient(endpoint: string): {
  client: DynamoDBClient;
  calls: RecordedCall[];
  failWhen: (predicate: ((call: RecordedCall, index: number) => boolean) | undefined) => void;
} {
  const client = createDynamoClient({ endpoint, region: "us-east-1" });
  const calls: RecordedCall[] = [];
  let shouldFail: ((call: RecordedCall, index: number) => boolean) | undefined;
  client.middlewareStack.add(
    (next, context) => (args) => {
      const call = { command: String(context.commandName).replace(/Command$/, ""), input: args.input as Record<string, unknown> };
      calls.push(call);
      if (shouldFail?.(call, calls.length - 1)) {
        const error = new Error("injected failure");
        error.name = "InternalServerError";
        return Promise.reject(error);
      }
      return next(args);
    },
    { step: "initialize", name: "recordCommands" },
  );
  return { client, calls, failWhen: (predicate) => (shouldFail = predicate) };
}
