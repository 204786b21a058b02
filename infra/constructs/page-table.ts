/**
 * The DynamoDB page table: snapshots of fetched pages (manifest and chunk items), the cache and
 * paging store of /fetch. On demand, TTL on, AWS-managed encryption.
 */
import { type RemovalPolicy, Validations } from "aws-cdk-lib";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as iam from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";

import { PAGE_TABLE } from "../../shared/cache/table";
export { PAGE_TABLE };

/**
 * Item-level actions the page store uses: reads of manifests and chunks (Get/BatchGet/Query),
 * writes of chunks and manifests (Put/BatchWrite), the conditional-write lease (Put/Update/
 * Delete with conditions). No Scan, no table or stream administration.
 */
export const PAGE_TABLE_ITEM_ACTIONS = [
  "dynamodb:GetItem",
  "dynamodb:BatchGetItem",
  "dynamodb:Query",
  "dynamodb:PutItem",
  "dynamodb:BatchWriteItem",
  "dynamodb:UpdateItem",
  "dynamodb:DeleteItem",
] as const;

export interface PageTableProps {
  /** RETAIN in prod (a deploy mistake must not drop data silently), DESTROY elsewhere. */
  removalPolicy: RemovalPolicy;
  /**
   * Point-in-time recovery (35 days of continuous backups). The pages can be fetched again,
   * but a snapshot a caller is paging through cannot: in prod a bad deploy or a stray delete
   * would otherwise break every open paging session (snapshot_expired) with no way back.
   */
  pointInTimeRecovery: boolean;
}

export class PageTable extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: PageTableProps) {
    super(scope, id);
    this.table = new dynamodb.Table(this, "Table", {
      partitionKey: { name: PAGE_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: PAGE_TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: PAGE_TABLE.ttlAttribute,
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: props.removalPolicy,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: props.pointInTimeRecovery },
    });
    if (!props.pointInTimeRecovery) {
      Validations.of(this.table).acknowledge({
        id: "AwsSolutions-DDB3",
        reason:
          "Point-in-time recovery is off in this environment by choice (cdk.json pointInTimeRecovery): a cache of public web pages that expire within hours (TTL), every item can be fetched again from its origin. Prod turns it on for the snapshots callers page through (docs/deploy.md).",
      });
      Validations.of(this.table).acknowledge({
        id: "cdk-validator-cfnguard::dynamodb_table_pitr_enabled_check",
        reason: "Off in this environment by choice (cdk.json pointInTimeRecovery), as for AwsSolutions-DDB3 above; on in prod.",
      });
    }
  }

  /** Lets `grantee` read and write items of this table only (no Scan, no index, no admin). */
  grantItemReadWrite(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: [...PAGE_TABLE_ITEM_ACTIONS],
      resourceArns: [this.table.tableArn],
    });
  }
}
