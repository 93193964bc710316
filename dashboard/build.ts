/**
 * Builds the web app with esbuild (the bundler the Lambda functions already use): one
 * minified ES module (and the modules it loads lazily) and one stylesheet, content-hashed,
 * and the page that loads them.
 * `npm start` builds it in memory at start-up (about 50 ms); the CDK stack builds it
 * while it synthesizes and uploads it to S3. Nothing else serves or builds it.
 */
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { dashboardRoutes } from '../contract/dashboard-routes.js';

const ROOT = import.meta.dirname;

export interface SiteFile {
  body: Buffer;
  contentType: string;
  /** Content-hashed files may be cached for ever; the page and the config never. */
  immutable: boolean;
}

/** The app's URL path on every host. */
export const DASHBOARD_PATH = '/dashboard';

/**
 * The page's security headers, the same locally and from CloudFront. `connect` lists
 * the origins the app may call besides its own (the Cognito endpoint on AWS).
 */
export function securityHeaders(connect: readonly string[] = []): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      `connect-src 'self'${connect.map((c) => ` ${c}`).join('')}`,
      "manifest-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  };
}

/** What the app needs of the route table (dashboard/src/api.ts): each route's method and path, without its schemas. */
const routeTargets = Object.fromEntries(Object.entries(dashboardRoutes).map(([id, r]) => [id, { method: r.method, path: r.path }]));

/** The dashboard's mark: three stacked layers (deployments) on a rounded square. Also the favicon. */
const MARK_PATHS =
  '<rect width="32" height="32" rx="7" fill="#1f4fd1"/>' +
  '<path d="M16 7 26 12 16 17 6 12Z" fill="#fff"/>' +
  '<path d="M6 16.5 16 21.5 26 16.5" fill="none" stroke="#fff" stroke-width="2" stroke-linejoin="round"/>' +
  '<path d="M6 20.5 16 25.5 26 20.5" fill="none" stroke="#c9d6ff" stroke-width="2" stroke-linejoin="round"/>';
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${MARK_PATHS}</svg>\n`;

const page = (script: string, style: string, chunks: readonly string[]) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>Deployments dashboard</title>
<link rel="icon" type="image/svg+xml" href="${DASHBOARD_PATH}/favicon.svg">
<link rel="stylesheet" href="${style}">
<script type="module" src="${script}"></script>
${chunks.map((c) => `<link rel="modulepreload" href="${c}">\n`).join('')}</head>
<body>
<svg class="sprite" width="0" height="0" aria-hidden="true"><symbol id="mark" viewBox="0 0 32 32">${MARK_PATHS}</symbol></svg>
<div id="app"><p class="loading">Loading…</p></div>
<noscript>The dashboard needs JavaScript.</noscript>
</body>
</html>
`;

/** The built site: file name (below DASHBOARD_PATH) to its content. */
export function buildDashboard(): Map<string, SiteFile> {
  // Synchronous, so the CDK app can build it while it synthesizes.
  const result = esbuild.buildSync({
    entryPoints: [path.join(ROOT, 'src/main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // Code splitting: a module the app imports lazily (the charts, decision 293) is a file of its own,
    // loaded by the pages that need it; what both share is a chunk.
    splitting: true,
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    outdir: '/out',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
    define: { DASHBOARD_ROUTES: JSON.stringify(routeTargets) },
  });
  const files = new Map<string, SiteFile>();
  for (const out of result.outputFiles) {
    const name = path.basename(out.path);
    files.set(name, {
      body: Buffer.from(out.contents),
      contentType: name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
      immutable: true,
    });
  }
  const names = [...files.keys()];
  const script = names.find((n) => n.startsWith('main-') && n.endsWith('.js'));
  const style = names.find((n) => n.endsWith('.css'));
  if (!script || !style) throw new Error(`the dashboard build made ${names.join(', ')}`);
  files.set('favicon.svg', { body: Buffer.from(FAVICON), contentType: 'image/svg+xml', immutable: false });
  files.set('index.html', {
    body: Buffer.from(
      page(
        `${DASHBOARD_PATH}/${script}`,
        `${DASHBOARD_PATH}/${style}`,
        // What the app shares with its lazy modules (esbuild names such a chunk `chunk`) is fetched with it, not after it.
        names.filter((n) => n.startsWith('chunk-')).map((n) => `${DASHBOARD_PATH}/${n}`),
      ),
    ),
    contentType: 'text/html; charset=utf-8',
    immutable: false,
  });
  return files;
}

/** Each file's size, raw and gzipped, for the report and the docs. */
export function siteSizes(files: Map<string, SiteFile>): { name: string; bytes: number; gzip: number }[] {
  return [...files].map(([name, f]) => ({ name, bytes: f.body.length, gzip: gzipSync(f.body, { level: 9 }).length }));
}
