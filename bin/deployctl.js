#!/usr/bin/env node
// Launcher for `deployctl` (bin/deployctl links here; bin/ on the PATH, docs/client.md) and `npm run deployctl`: runs the CLI's bundle (bin/build-deployctl.js),
// built first when missing or older than a source, so it always runs the code checked out.
import { pathToFileURL } from 'node:url';
import { BUNDLE, buildBundle, bundleIsFresh } from './build-deployctl.js';

if (!bundleIsFresh()) await buildBundle();
await import(pathToFileURL(BUNDLE).href);
