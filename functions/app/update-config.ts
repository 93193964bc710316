/**
 * PATCH /deployments/{id} (and the dashboard's): a JSON merge patch of a deployment's
 * configuration, planned with its new env secrets digested (env-digest.ts) and sealed for
 * the deployment (env-secrets.ts), then run as every update is (deployment-updates.ts).
 */
import { applyConfigPatch, type ConfigInput } from '../core/deployment-config.js';
import { scheduleIssues } from '../core/hibernation-schedule.js';
import { config } from '../lib/config.js';
import { runUpdate, type UpdateRequest } from './deployment-updates.js';
import { envDigester } from './env-digest.js';
import { sealEnv } from './env-secrets.js';

export const updateDeployment = (req: UpdateRequest & { patch: ConfigInput | undefined }) =>
  runUpdate(
    req,
    async (d) => {
      const digest = await envDigester(d.org_id, d.id);
      const { config: planned, problems } = applyConfigPatch(d.config, req.patch ?? {}, {
        appType: d.app_type,
        versions: config().appVersions,
        digest,
      });
      // The schedules' cron expressions and time zone (decision 50): checked here, where a patch brings them, so
      // that a rollback, which restores a revision checked when it was stored, does not bundle the cron parser.
      if (planned.hibernation) problems.push(...(await scheduleIssues(planned.hibernation)));
      return { config: planned, problems, rollbackOf: null };
    },
    (planned, d) => sealEnv(planned, d.org_id, d.id),
  );
