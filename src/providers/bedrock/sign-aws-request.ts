import type { Sha256 } from '@aws-crypto/sha256-js';
import type { SignatureV4 } from '@smithy/signature-v4';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface AwsRequestToSign {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface AwsSigningOptions {
  credentials: AwsCredentials;
  region: string;
  service: string;
  /** The signing time, injected so signing stays deterministic (the core's clock). */
  signingDate: Date;
  /** Adds x-amz-content-sha256, as the AWS SDKs do; the published test vectors sign without it. */
  applyChecksum?: boolean;
}

interface Signer {
  SignatureV4: typeof SignatureV4;
  Sha256: typeof Sha256;
}

/** Loads the AWS SDK's signer and hash (about 20 modules of @smithy/*, @aws-crypto/*, tslib). */
async function importSigner(): Promise<Signer> {
  const [{ SignatureV4 }, { Sha256 }] = await Promise.all([
    import('@smithy/signature-v4'),
    import('@aws-crypto/sha256-js'),
  ]);
  return { SignatureV4, Sha256 };
}

/**
 * The signer, loaded on first use rather than at start: a gateway without a Bedrock provider never
 * needs it, and it was ~1 MB of every gateway's heap (docs/benchmarks.md, "what the RSS is made
 * of"). A failed load (a broken install) is not kept, and its error says what is missing.
 */
export function lazyAwsSigner(load: () => Promise<Signer> = importSigner): () => Promise<Signer> {
  let signer: Promise<Signer> | undefined;
  return () =>
    (signer ??= load().catch((error: unknown) => {
      signer = undefined;
      throw new Error(
        `cannot load the AWS request signer (@smithy/signature-v4, @aws-crypto/sha256-js; reinstall the gateway's dependencies): ${(error as Error).message}`,
        { cause: error },
      );
    }));
}

const loadAwsSigner = lazyAwsSigner();

/**
 * AWS Signature Version 4 with the AWS SDK's own signer (@smithy/signature-v4), so the canonical
 * request rules (double path encoding for non-S3 services, header normalisation) are the ones AWS
 * maintains rather than ours. Returns the headers to send: the input plus host, x-amz-date,
 * x-amz-security-token (temporary credentials) and authorization.
 */
export async function signAwsRequest(
  request: AwsRequestToSign,
  options: AwsSigningOptions,
): Promise<Record<string, string>> {
  const url = new URL(request.url);
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const existing = query[name];
    query[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  const { SignatureV4, Sha256 } = await loadAwsSigner();
  const v4 = new SignatureV4({
    service: options.service,
    region: options.region,
    credentials: options.credentials,
    sha256: Sha256,
    applyChecksum: options.applyChecksum ?? true,
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  headers.host = url.host;
  const signed = await v4.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      // The URL keeps the path percent-encoded as sent on the wire; the signer encodes it once more.
      path: url.pathname,
      query,
      headers,
      body: request.body,
    },
    { signingDate: options.signingDate },
  );
  return signed.headers as Record<string, string>;
}
