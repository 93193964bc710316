/**
 * The RDS Data API's ExecuteStatement over a real PostgreSQL: PGlite (PostgreSQL compiled
 * to WASM, in this process), as the twin's Aurora cluster (decision 271). moto keeps the
 * cluster but runs no SQL. The statement runs as the user its secret names: the admin
 * secret's as the superuser, a deployment's with SET ROLE, so a login with a role that
 * does not exist (or may not log in) fails as on Aurora.
 */

import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { PGlite } from '@electric-sql/pglite';
import { TWIN_DB_ADMIN } from './shared-resources.js';

interface SqlParameter {
  name: string;
  value: { stringValue?: string; longValue?: number; doubleValue?: number; booleanValue?: boolean; isNull?: boolean };
}
interface ExecuteStatement {
  resourceArn?: string;
  secretArn?: string;
  sql?: string;
  parameters?: SqlParameter[];
}

export interface DataApiAnswer {
  status: number;
  body: unknown;
  errorType?: string;
}

const bad = (message: string): DataApiAnswer => ({ status: 400, errorType: 'BadRequestException', body: { message } });

/** `:name` placeholders as `$n`, in order of first use. */
function positional(sql: string, parameters: SqlParameter[]): { text: string; values: unknown[] } {
  const byName = new Map(parameters.map((p) => [p.name, p.value]));
  const order: string[] = [];
  const text = sql.replace(/(?<!:):([A-Za-z_][A-Za-z0-9_]*)/g, (whole, name: string) => {
    if (!byName.has(name)) return whole;
    if (!order.includes(name)) order.push(name);
    return `$${order.indexOf(name) + 1}`;
  });
  const values = order.map((n) => {
    const v = byName.get(n)!;
    return v.isNull ? null : (v.stringValue ?? v.longValue ?? v.doubleValue ?? v.booleanValue ?? null);
  });
  return { text, values };
}

const field = (v: unknown) =>
  v === null || v === undefined
    ? { isNull: true }
    : typeof v === 'number'
      ? Number.isInteger(v)
        ? { longValue: v }
        : { doubleValue: v }
      : typeof v === 'boolean'
        ? { booleanValue: v }
        : { stringValue: String(v) };

export class TwinDatabase {
  private readonly db: Promise<PGlite>;
  /** Statements run one at a time: SET ROLE holds for the next statement only. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly secrets: SecretsManagerClient) {
    this.db = import('@electric-sql/pglite').then(({ PGlite }) => PGlite.create());
  }

  /** Resolves once PostgreSQL answers (its WASM start takes seconds). */
  async ready(): Promise<void> {
    await this.db;
  }

  execute(input: ExecuteStatement): Promise<DataApiAnswer> {
    const run = this.queue.then(() => this.run(input));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run(input: ExecuteStatement): Promise<DataApiAnswer> {
    if (!input.resourceArn || !input.secretArn || !input.sql) return bad('resourceArn, secretArn and sql are required');
    let user: string;
    try {
      const secret = await this.secrets.send(new GetSecretValueCommand({ SecretId: input.secretArn }));
      user = (JSON.parse(secret.SecretString ?? '{}') as { username?: string }).username ?? '';
    } catch {
      return bad('The secret could not be read.');
    }
    const db = await this.db;
    const { text, values } = positional(input.sql, input.parameters ?? []);
    try {
      if (user !== TWIN_DB_ADMIN) {
        const login = await db.query<{ rolcanlogin: boolean }>('SELECT rolcanlogin FROM pg_roles WHERE rolname = $1', [user]);
        if (!login.rows[0]?.rolcanlogin) return bad(`FATAL: password authentication failed for user "${user}"`);
        await db.query(`SET ROLE "${user.replaceAll('"', '""')}"`);
      }
      const result = await db.query<Record<string, unknown>>(text, values, { rowMode: 'object' });
      const names = result.fields.map((f) => f.name);
      return {
        status: 200,
        body: {
          records: result.rows.map((row) => names.map((n) => field(row[n]))),
          numberOfRecordsUpdated: result.affectedRows ?? 0,
          columnMetadata: names.map((name) => ({ name, label: name })),
        },
      };
    } catch (e) {
      const pg = e as { message?: string; code?: string };
      return bad(`ERROR: ${pg.message ?? 'statement failed'}${pg.code ? `; SQLState: ${pg.code}` : ''}`);
    } finally {
      if (user !== TWIN_DB_ADMIN) await db.query('RESET ROLE').catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await (await this.db).close();
  }
}
