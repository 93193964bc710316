/**
 * The interactive documentation: Swagger UI from the `swagger-ui-dist` package, served
 * by this service itself (no CDN). Only the files named here are served (an allow-list,
 * so no request can reach any other file), each with its content type, and with URLs
 * that carry a content hash so browsers may cache them for good.
 *
 * Bundling note: the vendor files are read from the installed `swagger-ui-dist` package
 * (or from the directory in SWAGGER_UI_DIST, when a bundler copies them elsewhere).
 */

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DOCS_ASSET_NAMES, INIT_SCRIPT, SWAGGER_UI_DIST, VENDOR_FILES } from '../../contract/docs-assets.js';
import { API_PREFIX } from '../../contract/routes.js';

// The files' names and the variable are the stack's too (it copies the files): contract/docs-assets.ts.
export { DOCS_ASSET_NAMES, SWAGGER_UI_DIST };

const CONTENT_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

export function docsAssetContentType(name: string): string {
  return CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream';
}

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Swagger UI sets inline styles, so style-src allows them; scripts are only our own files. */
const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

export interface DocsResponse {
  status?: number;
  body: string;
  contentType: string;
  headers: Record<string, string>;
}

interface Asset {
  body: string;
  contentType: string;
  version: string;
}

function swaggerUiDir(): string {
  const override = process.env[SWAGGER_UI_DIST];
  if (override) return override;
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/**
 * The init script: finds openapi.json next to the docs page, so the page also works
 * when the API is mounted below a stage prefix.
 */
const initScript = `'use strict';
window.addEventListener('load', function () {
  var base = window.location.pathname.replace(/\\/docs\\/?$/, '');
  window.ui = SwaggerUIBundle({
    url: base + '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null,
    displayRequestDuration: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    filter: true,
    persistAuthorization: false
  });
});
`;

let assets: Map<string, Asset> | undefined;

/** Reads the files once per process. */
function loadAssets(): Map<string, Asset> {
  if (assets) return assets;
  const dir = swaggerUiDir();
  const entries: [string, string][] = VENDOR_FILES.map((name) => [name, readFileSync(path.join(dir, name), 'utf8')]);
  entries.push([INIT_SCRIPT, initScript]);
  assets = new Map(
    entries.map(([name, body]) => [
      name,
      { body, contentType: docsAssetContentType(name), version: createHash('sha256').update(body).digest('hex').slice(0, 16) },
    ]),
  );
  return assets;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The HTML page. Asset URLs are relative to the page's own path (`/api/v1/docs` or
 * `/api/v1/docs/`), so a stage prefix in front of API_PREFIX does not break them.
 */
export function docsPage(requestPath: string): DocsResponse {
  const all = loadAssets();
  const dir = requestPath.endsWith('/') ? '' : 'docs/';
  const url = (name: string) => escapeHtml(`${dir}${name}?v=${all.get(name)!.version}`);
  const body = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Deployment Management API ${escapeHtml(API_PREFIX)} docs</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${url('swagger-ui.css')}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${url('swagger-ui-bundle.js')}"></script>
<script src="${url(INIT_SCRIPT)}"></script>
</body>
</html>
`;
  return {
    body,
    contentType: 'text/html; charset=utf-8',
    headers: { 'Cache-Control': 'no-cache', 'Content-Security-Policy': PAGE_CSP, ...SECURITY_HEADERS },
  };
}

/**
 * One asset by name, or undefined when the name is not on the allow-list. A request
 * carrying the current content hash (`?v=`) may be cached for good; any other only briefly.
 */
export function docsAsset(name: string, version: string | undefined): DocsResponse | undefined {
  const all = loadAssets();
  const asset = all.get(name);
  if (!asset) return undefined;
  const immutable = version === asset.version;
  return {
    body: asset.body,
    contentType: asset.contentType,
    headers: { 'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300', ...SECURITY_HEADERS },
  };
}
