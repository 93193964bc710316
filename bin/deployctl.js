#!/usr/bin/env node
// Launcher for `npx deployctl`: runs the TypeScript CLI through tsx's ES module loader.
import { register } from 'tsx/esm/api';

register();
await import('./deployctl.ts');
