/** What the app is told about its host, at `/dashboard/config.json` (written by `npm start`, or by the CDK stack to S3). */
export interface DashboardConfig {
  /** The user pool's endpoint: Cognito's (`https://cognito-idp.<region>.amazonaws.com/`) or the local emulation's. */
  userPoolEndpoint: string;
  /** The dashboard's app client in that pool. */
  clientId: string;
  /** The dashboard API's base path or URL. */
  apiBase: string;
}

export async function loadConfig(): Promise<DashboardConfig> {
  const res = await fetch('config.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`config.json answered ${res.status}`);
  return (await res.json()) as DashboardConfig;
}
