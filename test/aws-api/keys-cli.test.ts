/**
 * The keys CLI's `--aws` path (bin/keys.ts) against moto: the key-signing secret read from
 * Secrets Manager (functions/adapters/secrets-manager/key-signing-secret.ts), as the
 * deployed functions read it, and the key written to the table on moto's DynamoDB.
 */
import { randomBytes } from 'node:crypto';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { findKeyById } from '../../functions/adapters/dynamo/api-key-store.js';
import { keyForm } from '../../functions/core/api-keys.js';
import { onAws } from './operator-cli.js';

const secrets = new SecretsManagerClient({});
const signingSecret = randomBytes(32).toString('base64');
let outputs: Record<string, string>;

beforeAll(async () => {
  const { ARN } = await secrets.send(new CreateSecretCommand({ Name: 'api-key-signing', SecretString: signingSecret }));
  outputs = { TABLE_NAME: process.env.TABLE_NAME!, API_KEY_SECRET_ARN: ARN! };
});

afterAll(() => secrets.destroy());

it('creates a key signed with the Secrets Manager secret, stored in the table, listed and revoked', async () => {
  const created = onAws('keys', ['create', '--org', 'org-aws-keys', '--name', 'bootstrap', '--json'], outputs);
  expect(created.stderr).toBe('');
  expect(created.status).toBe(0);
  const { id, key } = JSON.parse(created.stdout) as { id: string; key: string };
  expect(keyForm(key, Buffer.from(signingSecret, 'base64'))).toBe('signed');
  expect(keyForm(key, randomBytes(32))).not.toBe('signed');
  expect(await findKeyById(id)).toMatchObject({ id, org_id: 'org-aws-keys', name: 'bootstrap' });

  const listed = onAws('keys', ['list', '--org', 'org-aws-keys', '--json'], outputs);
  expect(listed.status).toBe(0);
  expect((JSON.parse(listed.stdout) as { id: string }[]).map((k) => k.id)).toEqual([id]);

  const revoked = onAws('keys', ['revoke', id, '--json'], outputs);
  expect(revoked.status).toBe(0);
  expect((await findKeyById(id))?.revoked_at).toEqual(expect.any(String));
});

it('fails, writing nothing, when API_KEY_SECRET_ARN names no secret', () => {
  const r = onAws('keys', ['create', '--org', 'org-aws-missing', '--name', 'x'], { ...outputs, API_KEY_SECRET_ARN: 'no-such-secret' });
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/^Error: .*secret/i);
  const listed = onAws('keys', ['list', '--org', 'org-aws-missing', '--json'], outputs);
  expect(JSON.parse(listed.stdout)).toEqual([]);
});
