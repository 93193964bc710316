/**
 * The local AWS twin on its own (decision 52): `node --import tsx local/aws-twin/main.ts`
 * prints one JSON line, `{endpoint, motoEndpoint, settings}` (settings as PLATFORM_SETTINGS
 * takes them), and runs until SIGTERM or SIGINT. Tests that drive the ECS driver in their
 * own process use it (jest cannot load PGlite's WASM in process); faults and the call count
 * are behind the proxy's hook (proxy.ts, FAULTS_PATH and STATS_PATH).
 */
import { startAwsTwin } from './twin.js';

const twin = await startAwsTwin({
  domain: process.env.APP_DOMAIN || 'apps.localhost',
  ...(process.env.TWIN_TASK_MS ? { taskMs: Number(process.env.TWIN_TASK_MS) } : {}),
  // A test of metrics reads minutes that ended before its deployment was made: see proxy.ts.
  ...(process.env.TWIN_METRICS_BACKFILL_SECONDS ? { metricsBackfillSeconds: Number(process.env.TWIN_METRICS_BACKFILL_SECONDS) } : {}),
});
process.stdout.write(`${JSON.stringify({ endpoint: twin.endpoint, motoEndpoint: twin.motoEndpoint, settings: twin.settings })}\n`);
const stop = () => void twin.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
