/**
 * The users CLI's `--aws` path (bin/users.ts) against a Cognito user pool on moto, made
 * with the dashboard's custom attributes as the stack makes it: create a user (its
 * organization and role as attributes, its password set permanent), list, delete.
 */
import { CognitoIdentityProviderClient, CreateUserPoolCommand } from '@aws-sdk/client-cognito-identity-provider';
import { ORG_ATTRIBUTE, ROLE_ATTRIBUTE } from '../../contract/dashboard-users.js';
import { onAws } from './operator-cli.js';

const cognito = new CognitoIdentityProviderClient({});
let pool: Record<string, string>;

beforeAll(async () => {
  const custom = (attribute: string) => ({ Name: attribute.replace(/^custom:/, ''), AttributeDataType: 'String' as const, Mutable: true });
  const { UserPool } = await cognito.send(
    new CreateUserPoolCommand({ PoolName: 'dashboard-users', Schema: [custom(ORG_ATTRIBUTE), custom(ROLE_ATTRIBUTE)] }),
  );
  pool = { USER_POOL_ID: UserPool!.Id! };
});

afterAll(() => cognito.destroy());

it('creates a user in the deployed pool, lists it with its organization and role, and deletes it', () => {
  const created = onAws('users', ['create', '--org', 'org-aws', '--email', 'Ops@Example.com', '--role', 'admin', '--json'], pool);
  expect(created.stderr).toBe('');
  expect(created.status).toBe(0);
  const shown = JSON.parse(created.stdout) as { email: string; org_id: string; role: string; password: string };
  expect(shown).toMatchObject({ email: 'ops@example.com', org_id: 'org-aws', role: 'admin' });
  expect(shown.password).toEqual(expect.any(String));

  const listed = onAws('users', ['list', '--org', 'org-aws', '--json'], pool);
  expect(listed.status).toBe(0);
  expect(JSON.parse(listed.stdout)).toEqual([{ email: 'ops@example.com', org_id: 'org-aws', role: 'admin', status: 'CONFIRMED' }]);

  const deleted = onAws('users', ['delete', 'ops@example.com'], pool);
  expect(deleted.status).toBe(0);
  expect(deleted.stdout).toBe('Deleted ops@example.com.\n');
  expect(JSON.parse(onAws('users', ['list', '--json'], pool).stdout)).toEqual([]);
});

it('refuses --aws without USER_POOL_ID, naming the stack output', () => {
  const r = onAws('users', ['list'], {});
  expect(r.status).toBe(2);
  expect(r.stderr).toBe('--aws needs USER_POOL_ID (the stack output UserPoolId).\n');
});
