/**
 * The page table's contract, shared by the runtime (the page store, the local emulator) and the
 * CDK construct, so the key names and the TTL attribute cannot drift between them.
 */
import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";

/** Key and TTL attribute names of the page table. Both keys are strings; TTL is epoch seconds. */
export const PAGE_TABLE = {
  partitionKey: "pk",
  sortKey: "sk",
  ttlAttribute: "expires_at",
} as const;

/**
 * The CreateTable input for the page table (on-demand billing). Used by the local server and the
 * tests; the CDK construct declares the same keys from {@link PAGE_TABLE}. TTL cannot be set here:
 * the emulator has no UpdateTimeToLive, so TTL is enabled in CDK and enforced on read in code.
 */
export function createTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: PAGE_TABLE.partitionKey, AttributeType: "S" },
      { AttributeName: PAGE_TABLE.sortKey, AttributeType: "S" },
    ],
    KeySchema: [
      { AttributeName: PAGE_TABLE.partitionKey, KeyType: "HASH" },
      { AttributeName: PAGE_TABLE.sortKey, KeyType: "RANGE" },
    ],
  };
}
