/**
 * {@link PageStore} on one DynamoDB table (see docs/page-store.md for the item layout).
 *
 * Only storage primitives live here; the logic is in {@link BasePageStore}. Every SDK error is
 * turned into {@link StoreUnavailableError} here (a failed lease condition into `false`), so no
 * SDK exception class reaches the callers.
 */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from "@aws-sdk/client-dynamodb";
import type { AttributeValue, DynamoDBClient, KeysAndAttributes, WriteRequest } from "@aws-sdk/client-dynamodb";
import { BasePageStore, StoreUnavailableError } from "./page-store";
import type { StoreFailureReason, StoredChunk, StoredManifest } from "./page-store";
import { PAGE_TABLE } from "./table";

const PK = PAGE_TABLE.partitionKey;
const SK = PAGE_TABLE.sortKey;
const TTL = PAGE_TABLE.ttlAttribute;

/** Sort-key prefix of manifests; chunks and the lease use other prefixes so they never match it. */
const MANIFEST_PREFIX = "snap#";
const CHUNK_PREFIX = "chunk#";
const LEASE_SK = "lease";

/** DynamoDB's per-call limits. */
const BATCH_WRITE_MAX = 25;
const BATCH_GET_MAX = 100;
/** Rounds of retrying unprocessed batch items (DynamoDB's answer to throttling inside a batch). */
const BATCH_RETRY_ROUNDS = 4;
const BATCH_RETRY_BASE_MS = 25;

/** Options of {@link DynamoPageStore}. */
export interface DynamoPageStoreOptions {
  /** Built by the caller (see `createDynamoClient`) and shared; never created here. */
  client: DynamoDBClient;
  tableName: string;
  /** Chunk size in UTF-16 code units; the default suits production. */
  chunkChars?: number;
}

export class DynamoPageStore extends BasePageStore {
  private readonly client: DynamoDBClient;
  private readonly tableName: string;

  constructor(options: DynamoPageStoreOptions) {
    super({ chunkChars: options.chunkChars });
    this.client = options.client;
    this.tableName = options.tableName;
  }

  protected async queryLatestManifest(urlKey: string): Promise<Record<string, unknown> | undefined> {
    const out = await this.call("Query", () =>
      this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          // begins_with keeps chunk and lease items out: their sort keys use other prefixes.
          KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :prefix)",
          ExpressionAttributeNames: { "#pk": PK, "#sk": SK },
          ExpressionAttributeValues: { ":pk": { S: urlKey }, ":prefix": { S: MANIFEST_PREFIX } },
          ScanIndexForward: false,
          Limit: 1,
          // A strongly consistent read: a waiter polling for a manifest another instance just wrote
          // must see it, or it would fetch the page a second time.
          ConsistentRead: true,
        }),
      ),
    );
    const item = out.Items?.[0];
    return item === undefined ? undefined : fromManifestItem(item);
  }

  protected async getManifest(urlKey: string, id: string): Promise<Record<string, unknown> | undefined> {
    const out = await this.call("GetItem", () =>
      this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: manifestKey(urlKey, id), ConsistentRead: true }),
      ),
    );
    return out.Item === undefined ? undefined : fromManifestItem(out.Item);
  }

  protected async getChunks(urlKey: string, id: string, indexes: number[]): Promise<Map<number, Uint8Array>> {
    const found = new Map<number, Uint8Array>();
    for (let i = 0; i < indexes.length; i += BATCH_GET_MAX) {
      let pending: KeysAndAttributes | undefined = {
        Keys: indexes.slice(i, i + BATCH_GET_MAX).map((index) => chunkKey(urlKey, id, index)),
        // Chunks are written before their manifest; a consistent read guarantees that a visible
        // manifest finds them (an eventually consistent miss would look like corruption).
        ConsistentRead: true,
        ProjectionExpression: "#sk, #data",
        ExpressionAttributeNames: { "#sk": SK, "#data": "data" },
      };
      for (let round = 0; pending?.Keys !== undefined && pending.Keys.length > 0; round += 1) {
        if (round > BATCH_RETRY_ROUNDS) {
          throw new StoreUnavailableError("throttled", "BatchGetItem left keys unprocessed after retries");
        }
        if (round > 0) await sleep(BATCH_RETRY_BASE_MS * 2 ** round);
        const request: KeysAndAttributes = pending;
        const out = await this.call("BatchGetItem", () =>
          this.client.send(new BatchGetItemCommand({ RequestItems: { [this.tableName]: request } })),
        );
        for (const item of out.Responses?.[this.tableName] ?? []) {
          const index = chunkIndexOf(item[SK]?.S);
          const data = item["data"]?.B;
          if (index !== undefined && data !== undefined) found.set(index, data);
        }
        pending = out.UnprocessedKeys?.[this.tableName];
      }
    }
    return found;
  }

  protected async putChunks(urlKey: string, id: string, chunks: StoredChunk[], expiresAt: number): Promise<void> {
    for (let i = 0; i < chunks.length; i += BATCH_WRITE_MAX) {
      let pending: WriteRequest[] = chunks.slice(i, i + BATCH_WRITE_MAX).map((chunk) => ({
        PutRequest: {
          Item: { ...chunkKey(urlKey, id, chunk.index), data: { B: chunk.data }, [TTL]: { N: String(expiresAt) } },
        },
      }));
      for (let round = 0; pending.length > 0; round += 1) {
        if (round > BATCH_RETRY_ROUNDS) {
          throw new StoreUnavailableError("throttled", "BatchWriteItem left items unprocessed after retries");
        }
        if (round > 0) await sleep(BATCH_RETRY_BASE_MS * 2 ** round);
        const request = pending;
        const out = await this.call("BatchWriteItem", () =>
          this.client.send(new BatchWriteItemCommand({ RequestItems: { [this.tableName]: request } })),
        );
        pending = out.UnprocessedItems?.[this.tableName] ?? [];
      }
    }
  }

  protected async putManifest(urlKey: string, manifest: StoredManifest): Promise<void> {
    await this.call("PutItem", () =>
      this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            ...manifestKey(urlKey, manifest.id),
            id: { S: manifest.id },
            sha256: { S: manifest.sha256 },
            total_chars: { N: String(manifest.total_chars) },
            fetched_at: { N: String(manifest.fetched_at) },
            [TTL]: { N: String(manifest.expires_at) },
            meta: { S: manifest.meta },
            chunks: { S: manifest.chunks },
          },
        }),
      ),
    );
  }

  protected async putLeaseIfFree(
    urlKey: string,
    lease: { holder: string; untilMs: number; expiresAt: number },
    nowMs: number,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            [PK]: { S: urlKey },
            [SK]: { S: LEASE_SK },
            holder: { S: lease.holder },
            lease_until: { N: String(lease.untilMs) },
            [TTL]: { N: String(lease.expiresAt) },
          },
          // Free, expired (the holder died or overran the fetch's time limit), or already ours.
          ConditionExpression: "attribute_not_exists(#pk) OR #until <= :now OR #holder = :holder",
          ExpressionAttributeNames: { "#pk": PK, "#until": "lease_until", "#holder": "holder" },
          ExpressionAttributeValues: { ":now": { N: String(nowMs) }, ":holder": { S: lease.holder } },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw toStoreError("PutItem", error);
    }
  }

  protected async deleteLeaseIfHeld(urlKey: string, holder: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { [PK]: { S: urlKey }, [SK]: { S: LEASE_SK } },
          ConditionExpression: "#holder = :holder",
          ExpressionAttributeNames: { "#holder": "holder" },
          ExpressionAttributeValues: { ":holder": { S: holder } },
        }),
      );
    } catch (error) {
      // Someone else took over an expired lease (or it is gone): theirs now, leave it.
      if (isConditionalCheckFailed(error)) return;
      throw toStoreError("DeleteItem", error);
    }
  }

  private async call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toStoreError(operation, error);
    }
  }
}

function manifestKey(urlKey: string, id: string): Record<string, AttributeValue> {
  return { [PK]: { S: urlKey }, [SK]: { S: `${MANIFEST_PREFIX}${id}` } };
}

function chunkKey(urlKey: string, id: string, index: number): Record<string, AttributeValue> {
  return { [PK]: { S: urlKey }, [SK]: { S: `${CHUNK_PREFIX}${id}#${String(index).padStart(5, "0")}` } };
}

function chunkIndexOf(sortKey: string | undefined): number | undefined {
  const match = sortKey === undefined ? null : /#(\d{5})$/.exec(sortKey);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** Plain values of a manifest item; wrong types pass through for the base's schema to reject. */
function fromManifestItem(item: Record<string, AttributeValue>): Record<string, unknown> {
  const num = (v: AttributeValue | undefined) => (v?.N === undefined ? undefined : Number(v.N));
  return {
    id: item["id"]?.S,
    sha256: item["sha256"]?.S,
    total_chars: num(item["total_chars"]),
    fetched_at: num(item["fetched_at"]),
    expires_at: num(item[TTL]),
    meta: item["meta"]?.S,
    chunks: item["chunks"]?.S,
  };
}

function isConditionalCheckFailed(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === "ConditionalCheckFailedException")
  );
}

const THROTTLE_NAMES = new Set([
  "ProvisionedThroughputExceededException",
  "ThrottlingException",
  "RequestLimitExceeded",
  "LimitExceededException",
]);
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"]);

/** Classifies any SDK or socket error; the message names the operation, never a key or a URL. */
function toStoreError(operation: string, error: unknown): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error;
  const name = error instanceof Error ? error.name : "";
  const code = (error as { code?: unknown } | null)?.code;
  let reason: StoreFailureReason = "rejected";
  if (THROTTLE_NAMES.has(name)) reason = "throttled";
  else if (name === "TimeoutError" || name === "RequestTimeout" || code === "ETIMEDOUT" || name === "AbortError") reason = "timeout";
  else if ((typeof code === "string" && NETWORK_CODES.has(code)) || name === "NetworkingError") reason = "unreachable";
  return new StoreUnavailableError(reason, `DynamoDB ${operation} failed (${reason}${name ? `: ${name}` : ""})`, {
    cause: error,
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
