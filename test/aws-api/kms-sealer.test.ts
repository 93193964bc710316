/**
 * Sealing on AWS (functions/adapters/kms/secret-sealer.ts) against moto's KMS: a sealed
 * text opens for what it was sealed for and for nothing else, because KMS checks the
 * encryption context on Decrypt; a legacy `kms:` text (bound to its purpose alone) still opens.
 */
import { CreateKeyCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { kmsSealer, secretSealer } from '../../functions/adapters/kms/secret-sealer.js';
import { legacySealContext, type SealedFor } from '../../functions/core/secret-sealer.js';

const kms = new KMSClient({});
let keyId: string;
const sealedFor: SealedFor = { purpose: 'delivery', orgId: 'org-kms', recordId: 'wh_1' };

beforeAll(async () => {
  keyId = (await kms.send(new CreateKeyCommand({ Description: 'webhook secrets' }))).KeyMetadata!.KeyId!;
  process.env.WEBHOOK_KMS_KEY_ID = keyId;
});

afterAll(() => kms.destroy());

it('the process default is the KMS sealer: what it seals is a kms2: text that opens for the same purpose, organization and record', async () => {
  const sealed = await secretSealer().seal('whsec_secret', sealedFor);
  expect(sealed).toMatch(/^kms2:[A-Za-z0-9+/]+=*$/);
  expect(sealed).not.toContain('whsec_secret');
  await expect(secretSealer().open(sealed, sealedFor)).resolves.toBe('whsec_secret');
});

it.each([
  ['another organization', { ...sealedFor, orgId: 'org-other' }],
  ['another record', { ...sealedFor, recordId: 'wh_2' }],
  ['another purpose', { ...sealedFor, purpose: 'replay' as const }],
])('does not open for %s: KMS refuses the encryption context', async (_, other) => {
  const sealed = await kmsSealer(keyId, kms).seal('whsec_secret', sealedFor);
  await expect(kmsSealer(keyId, kms).open(sealed, other)).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
});

it('opens a kms: text sealed before organization and record were bound, for its purpose alone', async () => {
  const { CiphertextBlob } = await kms.send(
    new EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from('whsec_old'), EncryptionContext: legacySealContext(sealedFor) }),
  );
  const legacy = `kms:${Buffer.from(CiphertextBlob!).toString('base64')}`;
  await expect(kmsSealer(keyId, kms).open(legacy, { ...sealedFor, orgId: 'any', recordId: 'any' })).resolves.toBe('whsec_old');
  await expect(kmsSealer(keyId, kms).open(legacy, { ...sealedFor, purpose: 'replay' })).rejects.toMatchObject({
    name: 'InvalidCiphertextException',
  });
});

it('refuses a text of no known scheme before asking KMS', async () => {
  await expect(kmsSealer(keyId, kms).open('aes:abc', sealedFor)).rejects.toThrow('Unknown sealed secret format.');
});
