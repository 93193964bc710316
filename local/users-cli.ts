/**
 * The dashboard's user administration (bin/users.ts): the Cognito user-pool API through
 * the AWS SDK, against the deployed pool (`--aws`) or the emulation `npm start` serves.
 * A user belongs to one organization and has one role, both attributes only
 * administrators can write.
 */
import { randomBytes } from 'node:crypto';
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminSetUserPasswordCommand,
  type CognitoIdentityProviderClient,
  ListUsersCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { parseFlags, UsageError } from '../cli-kit/args.js';
import { table } from '../cli-kit/text.js';
import { DASHBOARD_ROLES, DashboardRole, ORG_ATTRIBUTE, OrgId, ROLE_ATTRIBUTE } from '../contract/dashboard-users.js';
import { passwordProblems } from '../infra/user-pool-settings.js';

export interface UsersIo {
  out(line: string): void;
}

/** A password the pool's policy accepts, for a user who is handed it once. */
const generatedPassword = () => `${randomBytes(18).toString('base64url')}aA1!`;

export async function runUsersCommand(
  argv: string[],
  io: UsersIo,
  client: CognitoIdentityProviderClient,
  userPoolId: string,
): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'create': {
      const { values, positionals } = parseFlags(rest, {
        org: { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string' },
        password: { type: 'string' },
      });
      if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      const org = String(values.org ?? '');
      const email = String(values.email ?? '').toLowerCase();
      const role = String(values.role ?? '');
      if (!OrgId.safeParse(org).success) throw new UsageError('--org must be 1-64 letters, digits, "-" or "_"');
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new UsageError('--email must be an email address');
      if (!DashboardRole.safeParse(role).success) throw new UsageError(`--role must be one of: ${DASHBOARD_ROLES.join(', ')}`);
      const password = values.password === undefined ? generatedPassword() : String(values.password);
      const problems = passwordProblems(password);
      if (problems.length) throw new UsageError(`--password: ${problems.join('; ')}`);
      await client.send(
        new AdminCreateUserCommand({
          UserPoolId: userPoolId,
          Username: email,
          MessageAction: 'SUPPRESS',
          UserAttributes: [
            { Name: 'email', Value: email },
            { Name: 'email_verified', Value: 'true' },
            { Name: ORG_ATTRIBUTE, Value: org },
            { Name: ROLE_ATTRIBUTE, Value: role },
          ],
        }),
      );
      await client.send(new AdminSetUserPasswordCommand({ UserPoolId: userPoolId, Username: email, Password: password, Permanent: true }));
      const shown = values.password === undefined ? { password } : {};
      if (values.json) io.out(JSON.stringify({ email, org_id: org, role, ...shown }));
      else {
        io.out(`Created ${email} (${role} of ${org}).`);
        if (values.password === undefined) io.out(`Password (shown once, hand it over safely): ${password}`);
      }
      return 0;
    }
    case 'list': {
      const { values, positionals } = parseFlags(rest, { org: { type: 'string' } });
      if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      const users: { email: string; org_id: string; role: string; status: string }[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListUsersCommand({ UserPoolId: userPoolId, PaginationToken: token }));
        for (const u of page.Users ?? []) {
          const attr = (name: string) => u.Attributes?.find((a) => a.Name === name)?.Value ?? '';
          users.push({ email: attr('email'), org_id: attr(ORG_ATTRIBUTE), role: attr(ROLE_ATTRIBUTE), status: u.UserStatus ?? '' });
        }
        token = page.PaginationToken;
      } while (token);
      const shown = values.org ? users.filter((u) => u.org_id === values.org) : users;
      if (values.json) io.out(JSON.stringify(shown));
      else if (shown.length === 0) io.out('(none)');
      else
        for (const line of table([['EMAIL', 'ORG_ID', 'ROLE', 'STATUS'], ...shown.map((u) => [u.email, u.org_id, u.role, u.status])]))
          io.out(line.trimEnd());
      return 0;
    }
    case 'delete': {
      const { positionals } = parseFlags(rest, {});
      const [email, extra] = positionals;
      if (!email || extra) throw new UsageError('delete takes exactly one <email>');
      await client.send(new AdminDeleteUserCommand({ UserPoolId: userPoolId, Username: email.toLowerCase() }));
      io.out(`Deleted ${email.toLowerCase()}.`);
      return 0;
    }
    default:
      throw new UsageError(command ? `unknown command: ${command}` : 'a command is required');
  }
}
