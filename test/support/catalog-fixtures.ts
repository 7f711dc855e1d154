import { expect } from 'chai';
import { generateApiToken, sha256Hex, tokenPrefixOf } from '../../controller/crypto/api-token.js';
import type { HttpClient } from './http-client.js';
import type { TestService } from './test-service.js';

const suffix = () => Math.random().toString(36).slice(2, 8);

export async function createImage(client: HttpClient, envId: string, imageName = `acme/app-${suffix()}`) {
  const res = await client.post(`/api/environments/${envId}/container-images`, { imageName });
  expect(res.status, res.text).to.equal(201);
  return res.body as { id: string; imageName: string };
}

export async function createService(client: HttpClient, envId: string, body: Record<string, unknown> = {}) {
  const containerImageId = body.containerImageId ?? (await createImage(client, envId)).id;
  const res = await client.post(`/api/environments/${envId}/services`, { name: `svc-${suffix()}`, containerImageId, imageTag: '1.0', ...body });
  expect(res.status, res.text).to.equal(201);
  return res.body as { id: string; name: string; generation: number; environmentId: string };
}

/**
 * A server row for deployments to point at. Servers have their own routes elsewhere; these tests
 * only need the row, so it is written straight into the service's database.
 */
export async function insertServer(svc: TestService, environmentId: string, name = `srv-${suffix()}`) {
  const [row] = await svc.services.db('servers')
    .insert({ environmentId, name, hostname: '127.0.0.1', sshUser: 'deploy', dockerMode: 'ssh' })
    .returning('*');
  return row as { id: string; name: string };
}

/** Asserts an error envelope with code, status and (optionally) field. */
export function expectError(res: { status: number; body: any; text: string }, status: number, code: string, field?: string) {
  expect(res.status, res.text).to.equal(status);
  expect(res.body.code, res.text).to.equal(code);
  if (field !== undefined) expect(res.body.field, res.text).to.equal(field);
}

/**
 * An environment-limited API token of the given user, stored directly (the admin token routes
 * live on another branch); it authenticates through the real bearer-token path.
 */
export async function limitedToken(svc: TestService, http: HttpClient, ownerUserId: string, environmentIds: string[]) {
  const token = generateApiToken();
  await svc.services.db('apiTokens').insert({
    name: `limited-${suffix()}`, tokenHash: sha256Hex(token), tokenPrefix: tokenPrefixOf(token), ownerUserId, environmentIds,
  });
  return http.withToken(token);
}
