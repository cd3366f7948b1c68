import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it, vi } from 'vitest';
import { lazyAwsSigner, signAwsRequest } from './sign-aws-request.js';

// AWS's published Signature Version 4 test suite (get-vanilla family): fixed example credentials,
// 2015-08-30T12:36:00Z, us-east-1, service "service", host example.amazonaws.com.
const SUITE = {
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  region: 'us-east-1',
  service: 'service',
  signingDate: new Date(Date.UTC(2015, 7, 30, 12, 36, 0)),
  applyChecksum: false,
};
const PREFIX =
  'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=';

describe('signAwsRequest against the AWS SigV4 test suite', () => {
  it.each([
    [
      'get-vanilla',
      'https://example.amazonaws.com/',
      '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    ],
    [
      'get-vanilla-query-order-key-case',
      'https://example.amazonaws.com/?Param2=value2&Param1=value1',
      'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500',
    ],
  ])('%s', async (_name, url, signature) => {
    const headers = await signAwsRequest({ method: 'GET', url, headers: {}, body: '' }, SUITE);
    expect(headers['x-amz-date']).toBe('20150830T123600Z');
    expect(headers.authorization).toBe(PREFIX + signature);
  });

  it('adds the session token of temporary credentials and signs it', async () => {
    const headers = await signAwsRequest(
      {
        method: 'POST',
        url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      },
      {
        ...SUITE,
        service: 'bedrock',
        credentials: { ...SUITE.credentials, sessionToken: 'session-token' },
        applyChecksum: true,
      },
    );
    expect(headers['x-amz-security-token']).toBe('session-token');
    expect(headers['x-amz-content-sha256']).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20150830\/us-east-1\/bedrock\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
  });

  it('signs a different body differently', async () => {
    const sign = (body: string) =>
      signAwsRequest(
        {
          method: 'POST',
          url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/a%3A0/converse',
          headers: {},
          body,
        },
        { ...SUITE, service: 'bedrock' },
      );
    expect((await sign('{"a":1}')).authorization).not.toBe((await sign('{"a":2}')).authorization);
  });
});

describe('lazyAwsSigner (the signer is loaded on the first Bedrock request, not at start)', () => {
  it('loads once and hands out the same signer', async () => {
    const load = vi.fn(async () => ({ SignatureV4, Sha256 }));
    const get = lazyAwsSigner(load);
    expect(load).not.toHaveBeenCalled();
    expect((await get()).SignatureV4).toBe(SignatureV4);
    await get();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('says what is missing when the load fails, and tries again on the next request', async () => {
    const load = vi.fn(async (): Promise<{ SignatureV4: typeof SignatureV4; Sha256: typeof Sha256 }> => {
      throw new Error("Cannot find package '@smithy/signature-v4'");
    });
    const get = lazyAwsSigner(load);
    await expect(get()).rejects.toThrow(
      /cannot load the AWS request signer \(@smithy\/signature-v4.*reinstall.*Cannot find package '@smithy\/signature-v4'/,
    );
    await expect(get()).rejects.toThrow(/cannot load the AWS request signer/);
    expect(load).toHaveBeenCalledTimes(2);
  });
});
