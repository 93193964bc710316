/**
 * The driver this deployment runs: the simulated platform, configured by PHASE_DELAY_MS
 * and SIMULATED_FAILURE. A real driver is plugged in here (docs/platform.md).
 */
import { config } from '../../lib/config.js';
import { injectable } from '../../lib/injectable.js';
import { simulatedPlatform } from './simulated-platform.js';

export const hostingPlatform = injectable('HostingPlatform', () => simulatedPlatform(config()));
