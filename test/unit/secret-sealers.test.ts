/**
 * What a sealed webhook secret is bound to (core/secret-sealer.ts): its purpose, its
 * organization and its record. A text sealed for one webhook does not open as another's,
 * nor as another organization's; texts sealed before the organization and record were
 * bound (purpose alone) still open. Locally with the AES-GCM stand-in; for KMS, the
 * requests the adapter sends, to a client that answers as KMS does (the encryption
 * context must match on Decrypt).
 */
import { DecryptCommand, EncryptCommand, InvalidCiphertextException, KMSClient } from '@aws-sdk/client-kms';
import { kmsSealer } from '../../functions/adapters/kms/secret-sealer.js';
import type { SealedFor, SecretSealer } from '../../functions/core/secret-sealer.js';
import { aesSealer } from '../../local/aes-sealer.js';

const webhookA: SealedFor = { purpose: 'delivery', orgId: 'org-x', recordId: 'wh_a' };
const elsewhere: [string, SealedFor][] = [
  ['another record of the organization', { ...webhookA, recordId: 'wh_b' }],
  ['the same record id in another organization', { ...webhookA, orgId: 'org-y' }],
  ['another purpose', { ...webhookA, purpose: 'replay' }],
];

function boundTests(sealer: () => SecretSealer) {
  it('opens a text for what it was sealed for', async () => {
    const sealed = await sealer().seal('whsec_abc', webhookA);
    expect(sealed).not.toContain('whsec_abc');
    expect(await sealer().open(sealed, webhookA)).toBe('whsec_abc');
  });

  it.each(elsewhere)('does not open it as %s', async (_, other) => {
    const sealed = await sealer().seal('whsec_abc', webhookA);
    await expect(sealer().open(sealed, other)).rejects.toThrow();
  });

  it('refuses a format it does not know', async () => {
    await expect(sealer().open('v9:AAAA', webhookA)).rejects.toThrow('Unknown sealed secret format.');
  });
}

describe('the local AES-GCM sealer', () => {
  const key = Buffer.alloc(32, 7).toString('base64');
  boundTests(() => aesSealer(key));

  // Sealed for `delivery` under this key by the sealer before records were bound.
  const v1 = 'v1:U+j7koaBYnLTcPDmpVe11GXzwVokYUN23a1/C9iVMqXm04+qAbXoVBMe0bOwW5c=';

  it('opens a v1 text, sealed for its purpose alone, for that purpose', async () => {
    expect(await aesSealer(key).open(v1, webhookA)).toBe('whsec_legacy-secret');
    await expect(aesSealer(key).open(v1, { ...webhookA, purpose: 'replay' })).rejects.toThrow();
  });

  it('takes only a 32-byte key', () => {
    expect(() => aesSealer(Buffer.alloc(16).toString('base64'))).toThrow('WEBHOOK_SECRET_KEY must be 32 bytes, base64-encoded.');
  });
});

/** A KMS client whose every request is recorded and answered as KMS would: Decrypt needs the context Encrypt was given. */
function kmsLike() {
  const sent: { command: string; input: Record<string, any> }[] = [];
  const client = new KMSClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const contextText = (c: Record<string, string> = {}) => JSON.stringify(Object.entries(c).sort());
  client.middlewareStack.add(
    (_next, context) => async (args) => {
      const input = args.input as Record<string, any>;
      const command = String(context.commandName);
      sent.push({ command, input });
      if (command === 'EncryptCommand') {
        const blob = { context: contextText(input.EncryptionContext), plaintext: Buffer.from(input.Plaintext).toString('base64') };
        return { output: { CiphertextBlob: Buffer.from(JSON.stringify(blob)), $metadata: {} }, response: {} } as never;
      }
      const blob = JSON.parse(Buffer.from(input.CiphertextBlob).toString('utf8')) as { context: string; plaintext: string };
      if (blob.context !== contextText(input.EncryptionContext))
        throw new InvalidCiphertextException({ message: 'context', $metadata: {} });
      return { output: { Plaintext: Buffer.from(blob.plaintext, 'base64'), $metadata: {} }, response: {} } as never;
    },
    { step: 'initialize', name: 'kmsLike' },
  );
  return { client, sent };
}

describe('the KMS sealer', () => {
  let kms = kmsLike();
  beforeEach(() => {
    kms = kmsLike();
  });
  boundTests(() => kmsSealer('arn:aws:kms:us-east-1:000000000000:key/k', kms.client));

  it('sends the key and the purpose, organization and record as the encryption context, on Encrypt and Decrypt', async () => {
    const sealer = kmsSealer('arn:aws:kms:us-east-1:000000000000:key/k', kms.client);
    const sealed = await sealer.seal('whsec_abc', webhookA);
    expect(sealed).toMatch(/^kms2:/);
    await sealer.open(sealed, webhookA);
    const context = { purpose: 'delivery', org: 'org-x', record: 'wh_a' };
    expect(kms.sent).toEqual([
      {
        command: EncryptCommand.name,
        input: expect.objectContaining({ KeyId: 'arn:aws:kms:us-east-1:000000000000:key/k', EncryptionContext: context }),
      },
      { command: DecryptCommand.name, input: expect.objectContaining({ EncryptionContext: context }) },
    ]);
  });

  it('opens a kms: text, sealed for its purpose alone, with that context', async () => {
    const legacy = Buffer.from(
      JSON.stringify({ context: JSON.stringify([['purpose', 'delivery']]), plaintext: Buffer.from('whsec_old').toString('base64') }),
    );
    const sealer = kmsSealer('k', kms.client);
    expect(await sealer.open(`kms:${legacy.toString('base64')}`, webhookA)).toBe('whsec_old');
    expect(kms.sent.map((s) => s.input.EncryptionContext)).toEqual([{ purpose: 'delivery' }]);
  });
});
