/**
 * The search providers' API keys: one Secrets Manager secret holding
 * `{"brave_api_key": "…", "tavily_api_key": "…"}`. CloudFormation creates it with empty values
 * (the shape, not a secret); the operator sets the real value out of band with
 * `aws secretsmanager put-secret-value` (README, Deploy), so no key is ever in code, in
 * cdk.json or in a template. The template value never changes, so a later deploy does not
 * overwrite what the operator stored.
 */
import { SecretValue, Validations } from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";

/** The JSON shape of the secret; keys the search function reads. */
export const PROVIDER_SECRET_SHAPE = { brave_api_key: "", tavily_api_key: "" } as const;

export class ProviderSecret extends Construct {
  readonly secret: secretsmanager.Secret;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.secret = new secretsmanager.Secret(this, "Secret", {
      description: 'webgate search provider keys, JSON {"brave_api_key": "...", "tavily_api_key": "..."}; set with put-secret-value',
      // Empty strings only document the shape: nothing secret is in the template.
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify(PROVIDER_SECRET_SHAPE)),
    });
    Validations.of(this.secret).acknowledge({
      id: "AwsSolutions-SMG4",
      reason:
        "The secret holds third-party API keys (Brave, Tavily) that only the providers' consoles can issue; a rotation Lambda cannot create new ones. Rotate them by hand with put-secret-value (README, Deploy).",
    });
  }

  /** Lets `grantee` read this secret's value only (no DescribeSecret, no other secret). */
  grantReadValue(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ["secretsmanager:GetSecretValue"],
      resourceArns: [this.secret.secretArn],
    });
  }
}
