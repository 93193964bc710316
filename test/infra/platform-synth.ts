/**
 * Synthesizes the app with `-c platform=ecs` (cdk-nag on, bundling off: the platform's tests
 * read its stack, the API stack's environment and grants, none of which bundling changes),
 * and reads both stacks' templates back.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NestedStack } from 'aws-cdk-lib';
import { type BuiltApp, buildApp } from '../../infra/aws/app.js';
import type { DeploymentPlatformStack } from '../../infra/aws/platform/stack.js';
import type { CfnTemplate } from './synth.js';

export const PLATFORM_CONTEXT: Readonly<Record<string, string>> = {
  stage: 'prod',
  platform: 'ecs',
  domain: 'apps.example.org',
  hostedZoneId: 'Z0123456789ABCDEFGHIJ',
};

export interface PlatformSynth extends BuiltApp {
  readonly platform: DeploymentPlatformStack;
  /** The platform stack's template. */
  readonly platformJson: CfnTemplate;
  /** The API stack's template, and its nested monitoring stack's. */
  readonly apiJson: CfnTemplate;
  readonly nestedJson: CfnTemplate;
}

/** Synthesizes (and throws on an unacknowledged cdk-nag finding), then removes the assembly. */
export function synthPlatform(context: Record<string, string> = PLATFORM_CONTEXT): PlatformSynth {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-platform-'));
  try {
    const built = buildApp({ context: { ...context, 'aws:cdk:bundling-stacks': [] }, outdir, nag: true });
    built.app.synth();
    if (!built.platform) throw new Error('no platform stack: the context does not say platform=ecs');
    const read = (file: string) => JSON.parse(fs.readFileSync(path.join(outdir, file), 'utf8')) as CfnTemplate;
    const nested = built.stack.node.findAll().find(NestedStack.isNestedStack)!;
    return {
      ...built,
      platform: built.platform,
      platformJson: read(built.platform.templateFile),
      apiJson: read(built.stack.templateFile),
      nestedJson: read(nested.templateFile),
    };
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}
