/** Where things live in the API: the version prefix and the path of each resource (links, Location). */
export const API_PREFIX = '/api/v1';

export const deploymentPath = (id: string): string => `${API_PREFIX}/deployments/${id}`;
export const operationPath = (id: string): string => `${API_PREFIX}/operations/${id}`;
export const environmentPath = (id: string): string => `${API_PREFIX}/environments/${id}`;
export const webhookPath = (id: string): string => `${API_PREFIX}/webhooks/${id}`;
