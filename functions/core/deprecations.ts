/**
 * What is deprecated (decision 44), each feature once. From this list come the
 * `Deprecation`, `Sunset` and `Link` headers of every answer to a request that uses one
 * (middleware/deprecation-notice.ts), the `deprecated: true` of its usage log entry, the
 * OpenAPI document's `deprecated` on the form of the parameter's value, and the
 * changelog's section (docs/changelog.md, checked against this list by a test).
 * Data only.
 */
import type { ID_FORMS } from '../../contract/schemas.js';

export interface Deprecation {
  /** A stable name: the changelog's heading anchor, and the typed client warns once per name. */
  readonly id: string;
  /** What is going away, as the changelog and the client's warning say it. */
  readonly feature: string;
  /** What to do instead. */
  readonly instead: string;
  /** Where a request uses it: the routes (method and path below /api/v1), the query parameter, and the form of its value. */
  readonly use: { readonly routes: readonly string[]; readonly query: string; readonly form: keyof typeof ID_FORMS };
  /** The day it was deprecated, and the day it may stop working (UTC dates). */
  readonly since: string;
  readonly sunset: string;
  /** Where it is explained: the changelog's section, on the docs page the service serves. */
  readonly link: string;
}

export const DEPRECATIONS: readonly Deprecation[] = [
  {
    id: 'dep-prefixed-resource-id',
    feature: 'The `dep_<uuid>` form of the `resource_id` filter on `GET /operations` and `GET /events`',
    instead: 'Send the deployment id as every record shows it: the bare UUID (`resource_id=<uuid>`).',
    use: { routes: ['GET /operations', 'GET /events'], query: 'resource_id', form: 'depPrefixed' },
    since: '2026-11-24',
    sunset: '2027-11-24',
    link: '/api/v1/docs#deprecations',
  },
];
