/**
 * The acknowledged findings of the template checks (decision 173): cdk-nag's at every synth,
 * the Control Tower rules' and cfn-lint's in `npm run validate:aws`, all made by
 * `Validations.of(construct).acknowledge({ id, reason })`. Each must give its reason and name a
 * rule that exists: a misspelt id acknowledges nothing, yet reads as a decision. Only the
 * construct trees are built (no synthesis, no cfn-lint), for each stage and the prod variants
 * validate:aws checks.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { buildApp } from '../../infra/aws/app.js';
import { PLATFORM_CONTEXT } from './platform-synth.js';
import { PROD_CONTEXT } from './synth.js';

interface Acknowledgement {
  readonly id: string;
  readonly reason: unknown;
  readonly at: string;
}

function acknowledgements(context: Record<string, string>): Acknowledgement[] {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-acks-'));
  try {
    const { app } = buildApp({ context: { ...context, 'aws:cdk:bundling-stacks': [] }, outdir, nag: false });
    return app.node
      .findAll()
      .flatMap((c) =>
        c.node.metadata
          .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          .flatMap((m) => Object.entries(m.data as Record<string, unknown>).map(([id, reason]) => ({ id, reason, at: c.node.path }))),
      );
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

/** The names of the Control Tower rules @cdklabs/cdk-validator-cfnguard bundles (`rule <name> when …`). */
function controlTowerRuleNames(): Set<string> {
  const root = path.join(path.dirname(createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json')), 'rules');
  const names = new Set<string>();
  for (const file of fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.guard')))
    for (const [, name] of fs.readFileSync(path.join(root, file), 'utf8').matchAll(/^rule (\w+) when /gm)) names.add(name!);
  return names;
}

const STAGES: Record<string, Record<string, string>> = {
  dev: { stage: 'dev' },
  'prod, every option': { ...PROD_CONTEXT },
  'prod, no option': { stage: 'prod' },
  'prod, ECS platform': { ...PLATFORM_CONTEXT },
  'dev, ECS platform': { ...PLATFORM_CONTEXT, stage: 'dev' },
};

describe.each(Object.entries(STAGES))('acknowledged findings, %s', (_name, context) => {
  let acks: Acknowledgement[] = [];
  let rules = new Set<string>();
  beforeAll(() => {
    acks = acknowledgements(context);
    rules = controlTowerRuleNames();
  });

  it('has acknowledgements of each validator to check', () => {
    expect(acks.some((a) => a.id.startsWith('Annotation::AwsSolutions-'))).toBe(true);
    expect(acks.some((a) => a.id.startsWith('cdk-validator-cfnguard::'))).toBe(true);
  });

  it('gives each its reason', () => {
    const without = acks.filter((a) => typeof a.reason !== 'string' || a.reason.trim().length < 20);
    expect(without).toEqual([]);
  });

  it('names, in each, a rule of cdk-nag, of the Control Tower rules or of cfn-lint', () => {
    const named = (id: string) => {
      const guard = /^cdk-validator-cfnguard::(\w+)$/.exec(id);
      if (guard) return rules.has(guard[1]!);
      // aws-cdk-lib's own template checks, which its VPC construct acknowledges for itself (the platform stack's).
      if (/^CloudFormation-Validate::[EWF]\d{4}$/.test(id)) return true;
      return /^Annotation::AwsSolutions-[A-Z]+\d+(\[.+\])?$/.test(id) || /^cfn-lint::[EWI]\d{4}$/.test(id);
    };
    expect(acks.filter((a) => !named(a.id))).toEqual([]);
  });
});
