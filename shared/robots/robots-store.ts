/**
 * robots.txt records in the page table (docs/page-store.md): one item per origin, partition key
 * {@link robotsKeyFor}, sort key `robots`, with the table's TTL attribute. Leases for "one fetch
 * per host" reuse the page store's conditional lease item on the same partition.
 */
import { deflateSync, inflateSync } from "node:zlib";
import { GetItemCommand, PutItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { StoreUnavailableError, type PageStore } from "../cache/page-store";
import { PAGE_TABLE } from "../cache/table";
import type { RobotsRecord } from "./robots-policy";

/** A stored record: the outcome, when it was fetched (epoch ms) and when it lapses (epoch s). */
export interface StoredRobots {
  record: RobotsRecord;
  fetchedAt: number;
  expiresAt: number;
}

/** Storage of robots records and fetch leases; every failure is a {@link StoreUnavailableError}. */
export interface RobotsStore {
  get(key: string): Promise<StoredRobots | undefined>;
  /** Stores the record; a record too large for one item is not stored (returns false). */
  put(key: string, stored: StoredRobots): Promise<boolean>;
  tryAcquireLease(key: string, holder: string, ttlMs: number, now: number): Promise<boolean>;
  releaseLease(key: string, holder: string): Promise<void>;
}

const SK = "robots";
/**
 * Each robots record read or write gets at most this long: with a slow table the check falls back
 * to fetching robots.txt directly, instead of adding the client's full retry time to every
 * request on top of the snapshot lookup's.
 */
export const ROBOTS_STORE_TIMEOUT_MS = 1_000;
/** Compressed bodies above this stay out of the table (DynamoDB's item limit is 400 KB). */
const MAX_STORED_BODY_BYTES = 350_000;

export class DynamoRobotsStore implements RobotsStore {
  private readonly client: DynamoDBClient;
  private readonly tableName: string;
  private readonly leases: Pick<PageStore, "tryAcquireLease" | "releaseLease">;

  constructor(options: { client: DynamoDBClient; tableName: string; leases: Pick<PageStore, "tryAcquireLease" | "releaseLease"> }) {
    this.client = options.client;
    this.tableName = options.tableName;
    this.leases = options.leases;
  }

  async get(key: string): Promise<StoredRobots | undefined> {
    const out = await this.call("GetItem", (abortSignal) =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { [PAGE_TABLE.partitionKey]: { S: key }, [PAGE_TABLE.sortKey]: { S: SK } },
          // A waiter polling for the record another instance just wrote must see it.
          ConsistentRead: true,
        }),
        { abortSignal },
      ),
    );
    const item = out.Item;
    if (item === undefined) return undefined;
    const kind = item["kind"]?.S;
    const fetchedAt = Number(item["fetched_at"]?.N);
    const expiresAt = Number(item[PAGE_TABLE.ttlAttribute]?.N);
    if (!Number.isFinite(fetchedAt) || !Number.isFinite(expiresAt)) return undefined;
    if (kind === "rules") {
      const data = item["body"]?.B;
      if (data === undefined) return undefined;
      try {
        return { record: { kind, body: inflateSync(data).toString("utf8") }, fetchedAt, expiresAt };
      } catch {
        // An undecodable record is no record: it is fetched again.
        return undefined;
      }
    }
    if (kind === "allow_all" || kind === "disallow_all") return { record: { kind, why: item["why"]?.S ?? "" }, fetchedAt, expiresAt };
    return undefined;
  }

  async put(key: string, stored: StoredRobots): Promise<boolean> {
    const { record } = stored;
    const body = record.kind === "rules" ? deflateSync(Buffer.from(record.body, "utf8")) : undefined;
    if (body !== undefined && body.byteLength > MAX_STORED_BODY_BYTES) return false;
    await this.call("PutItem", (abortSignal) =>
      this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            [PAGE_TABLE.partitionKey]: { S: key },
            [PAGE_TABLE.sortKey]: { S: SK },
            kind: { S: record.kind },
            fetched_at: { N: String(stored.fetchedAt) },
            [PAGE_TABLE.ttlAttribute]: { N: String(stored.expiresAt) },
            ...(body === undefined ? {} : { body: { B: body } }),
            ...(record.kind === "rules" ? {} : { why: { S: record.why } }),
          },
        }),
        { abortSignal },
      ),
    );
    return true;
  }

  tryAcquireLease(key: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    return this.leases.tryAcquireLease(key, holder, ttlMs, now);
  }

  releaseLease(key: string, holder: string): Promise<void> {
    return this.leases.releaseLease(key, holder);
  }

  private async call<T>(operation: string, run: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await run(AbortSignal.timeout(ROBOTS_STORE_TIMEOUT_MS));
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      const name = error instanceof Error ? error.name : "";
      throw new StoreUnavailableError("rejected", `DynamoDB ${operation} failed (robots${name ? `: ${name}` : ""})`, { cause: error });
    }
  }
}
