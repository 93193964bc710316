/**
 * The files the interactive documentation serves (functions/docs/docs-assets.ts serves
 * them), named once: the stack copies the vendor files beside the docs function's bundle
 * (infra/aws/functions.ts) and tells it where under SWAGGER_UI_DIST.
 */

/** Files read from swagger-ui-dist, and the one script of our own. */
export const VENDOR_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js'] as const;
export const INIT_SCRIPT = 'docs-init.js';
export const DOCS_ASSET_NAMES: readonly string[] = [...VENDOR_FILES, INIT_SCRIPT];
/** The variable naming the directory a bundler copied the vendor files into (infra/aws/functions.ts sets it). */
export const SWAGGER_UI_DIST = 'SWAGGER_UI_DIST';
