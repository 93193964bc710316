/**
 * The typed client of the Deployment Management API:
 *
 *   const api = new DeploymentsClient({ baseUrl, apiKey });
 *   const { operation_id } = await api.createDeployment({ app_type: 'airflow' });
 *   const op = await waitForOperation(api, operation_id, { onProgress: (o) => console.log(o.progress.phase) });
 *
 * Webhook receivers check each delivery with `verifyWebhook(secret, headers, rawBody)`.
 * See docs/client.md.
 */
export * from './client.js';
export * from './deprecation.js';
export * from './errors.js';
export * from './logs.js';
export * from './wait.js';
export * from './webhooks.js';
