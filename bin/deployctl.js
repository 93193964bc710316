#!/usr/bin/env node
// Launcher for `npx deployctl`: runs the TypeScript CLI through tsx's require hook.
'use strict';
require('tsx/cjs');
require('./deployctl.ts');
