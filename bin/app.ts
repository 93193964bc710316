/**
 * The CDK app: `npx cdk synth`, `npx cdk deploy -c stage=prod`. Context options and
 * the deployment steps: docs/deploy.md.
 */
import { buildApp } from '../infra/aws/app.js';

buildApp().app.synth();
