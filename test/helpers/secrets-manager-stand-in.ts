/**
 * A loopback Secrets Manager speaking the JSON 1.1 protocol for GetSecretValue, used through the
 * real @aws-sdk/client-secrets-manager with an endpoint override.
 */
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { startStandIn, type StandIn } from "./provider-stand-in";

export interface SecretsManagerStandIn extends StandIn {
  /** The SecretString answered next; `undefined` answers ResourceNotFoundException. */
  secretString: string | undefined;
  /** GetSecretValue calls seen so far. */
  calls(): number;
}

export const TEST_SECRET_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:webgate/providers-AbCdEf";

export async function startSecretsManagerStandIn(secretString: string | undefined): Promise<SecretsManagerStandIn> {
  const standIn = (await startStandIn()) as SecretsManagerStandIn;
  standIn.secretString = secretString;
  standIn.calls = () => standIn.requests.filter((r) => r.headers["x-amz-target"] === "secretsmanager.GetSecretValue").length;
  standIn.reply = (request) => {
    const json = { "content-type": "application/x-amz-json-1.1" };
    if (request.method !== "POST" || request.headers["x-amz-target"] !== "secretsmanager.GetSecretValue") {
      return { status: 400, headers: { ...json, "x-amzn-errortype": "UnknownOperationException" }, body: JSON.stringify({ __type: "UnknownOperationException" }) };
    }
    const { SecretId } = JSON.parse(request.body) as { SecretId: string };
    if (standIn.secretString === undefined || SecretId !== TEST_SECRET_ARN) {
      return {
        status: 400,
        headers: { ...json, "x-amzn-errortype": "ResourceNotFoundException" },
        body: JSON.stringify({ __type: "ResourceNotFoundException", message: "Secrets Manager can't find the specified secret." }),
      };
    }
    return {
      status: 200,
      headers: json,
      body: JSON.stringify({
        ARN: TEST_SECRET_ARN,
        Name: "webgate/providers",
        SecretString: standIn.secretString,
        VersionId: "6b1c2c7a-0000-4000-8000-000000000001",
        VersionStages: ["AWSCURRENT"],
        CreatedDate: 1_764_000_000.123,
      }),
    };
  };
  return standIn;
}

/** The real SDK client pointed at a loopback endpoint, with fake credentials and no retries. */
export function secretsManagerClient(endpoint: string): SecretsManagerClient {
  return new SecretsManagerClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "AKIDTEST", secretAccessKey: "test-secret-access-key" },
    maxAttempts: 1,
  });
}
