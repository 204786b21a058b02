/**
 * The DynamoDB emulator for `npm start` and the tests: dynalite in process, in memory, listening
 * on 127.0.0.1 only (it would listen on every interface otherwise), with the page table created.
 */
import type { AddressInfo } from "node:net";
import { CreateTableCommand, DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import dynalite from "dynalite";
import { createDynamoClient } from "../../shared/cache/dynamo-client";
import { createTableInput } from "../../shared/cache/table";
import { DEFAULTS } from "../../shared/config";

export interface LocalDynamo {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  /** A client for the endpoint, built with the same fail-fast settings as production. */
  client: DynamoDBClient;
  /** Stops the emulator (its data is gone) and destroys the client. */
  close(): Promise<void>;
}

/** Starts dynalite on 127.0.0.1 (`port` 0 or absent: any free port) and creates `tableName`. */
export async function startLocalDynamo(options: { port?: number; tableName?: string } = {}): Promise<LocalDynamo> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = createDynamoClient({ endpoint, region: "us-east-1" });
  const close = async (): Promise<void> => {
    client.destroy();
    // Keep-alive sockets from the client would otherwise hold close() open.
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  };
  try {
    await ensureTable(client, options.tableName ?? DEFAULTS.tableName);
  } catch (error) {
    await close();
    throw error;
  }
  return { endpoint, client, close };
}

/**
 * Creates the page table unless it exists (a DynamoDB endpoint named by
 * `WEBGATE_DYNAMODB_ENDPOINT` may already have it), then waits until it is ACTIVE.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    if (!(error instanceof Error && error.name === "ResourceInUseException")) throw error;
  }
  await waitForActive(client, tableName);
}

async function waitForActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (out.Table?.TableStatus === "ACTIVE") return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`table ${tableName} did not become ACTIVE`);
}
