/**
 * Stands in, inside the Lambda bundles only, for the AWS SDK credential sources that a Lambda
 * function never uses (infra/bundling.ts aliases them here): SSO (`fromSSO`), the shared
 * config and credentials files (`fromIni`), `credential_process` (`fromProcess`) and web identity
 * token files (`fromTokenFile`, EKS service accounts). They and the STS, SSO and sign-in clients
 * they carry are ~100 KB of every bundle, compiled at every cold start.
 *
 * Lambda hands a function its execution role's credentials in the reserved environment variables
 * `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, which the default chain's
 * first source (`fromEnv`, still bundled) reads; the chain's last source (container and instance
 * metadata endpoints) stays bundled too. Should a function ever reach one of these sources (say,
 * `AWS_PROFILE` set in its configuration, which makes the chain skip `fromEnv`), each refuses the
 * way an inapplicable source does, with `tryNextLink`, so the chain goes on to the next source and
 * ends in the SDK's own "Could not load credentials from any providers" error, never a crash.
 * Tests and `npm start` run unbundled, with every source.
 */

/** Shaped like the SDK's CredentialsProviderError: the default chain moves on when `tryNextLink` is set. */
class CredentialSourceNotBundled extends Error {
  override readonly name = "CredentialsProviderError";
  readonly tryNextLink = true;
}

type CredentialSource = (init?: unknown) => () => Promise<never>;

function notBundled(source: string): CredentialSource {
  return () => () =>
    Promise.reject(new CredentialSourceNotBundled(`The ${source} credential source is not part of the Lambda bundle (infra/bundling.ts): Lambda provides credentials in the environment.`));
}

/** `@aws-sdk/credential-provider-sso`. */
export const fromSSO = notBundled("SSO");
/** `@aws-sdk/credential-provider-ini`. */
export const fromIni = notBundled("shared config file (ini)");
/** `@aws-sdk/credential-provider-process`. */
export const fromProcess = notBundled("credential_process");
/** `@aws-sdk/credential-provider-web-identity`. */
export const fromTokenFile = notBundled("web identity token file");
