/** deployctl deployments users create: an app user, its password printed once (decision 51). */
import { USER_ROLES } from '../../../contract/vocabulary.js';
import { oneOf, optionalWait, UsageError } from '../args.js';
import type { Command } from '../command.js';
import { readSecretFile } from '../config-patch.js';
import { EXIT, out } from '../context.js';
import { json } from '../format.js';
import { follow, operationOutcome } from '../progress.js';
import { reportAccepted } from './deployments.js';

export const appUserCommands: Record<string, Command> = {
  'deployments users create': {
    args: ['deployment-id'],
    options: ['username', 'email', 'role', 'password-file', 'idempotency-key', 'wait', 'timeout'],
    async run(r) {
      const { values, ctx } = r;
      if (!values.username) throw new UsageError('--username is required');
      if (!values.email) throw new UsageError('--email is required');
      const role = oneOf('role', values.role, USER_ROLES);
      if (!role) throw new UsageError(`--role is required (${USER_ROLES.join(', ')})`);
      const wait = optionalWait(values);
      // From a file, never from the command line (shell history, the process list); absent: the service makes one.
      const password = values['password-file'] !== undefined ? readSecretFile('--password-file', values['password-file']) : undefined;
      const made = await r.api.createAppUser(
        r.args[0]!,
        { username: values.username, email: values.email, role, ...(password !== undefined ? { password } : {}) },
        { idempotencyKey: values['idempotency-key'] },
      );
      const { initial_password: shown, ...accepted } = made;
      if (values.json) {
        // The answer as the API gave it, the password included: once, before any progress.
        json(ctx, made);
        return wait ? operationOutcome(r, await follow(r, made.operation_id, `provisioning ${values.username} on`, wait)) : EXIT.ok;
      }
      out(
        ctx,
        shown !== undefined
          ? `Password of ${values.username} (shown only this once; store it now):\n\n  ${shown}\n`
          : 'The password is not shown again: this repeats an earlier request (Idempotency-Key) made with another key, or the deployment is gone.',
      );
      return reportAccepted(r, accepted, wait, {
        being: `given the app user ${values.username}`,
        label: `provisioning ${values.username} on`,
        done: (d) => `App user ${values.username} is provisioned on ${d.name} (${d.id}).`,
      });
    },
  },
};
