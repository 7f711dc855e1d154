// Certificates from ACME (docs/ingress.md#certificates): an environment's certificates as its
// viewers see them (never the chain's key), and the HTTP-01 answer the CA fetches through every
// server's proxy. The challenge route is public, as the CA sends no token; it passes the chain's
// every other middleware (request id, error envelope, rate limit) like /health.
import type { Services } from '../../controller/services.js';
import type { CertificateView } from '../../controller/store/repositories/certificates.js';
import { notFound } from '../../controller/errors/app-error.js';
import { route, result } from '../http/route.js';
import { enumOf, listOf, nullable, nullableTimestamp, object, paginationQuery, str } from '../http/schema.js';
import { environmentOf } from './loaders.js';

const certificateRead = object({
  host: str({ description: 'The domain name, as a service\'s ingress.hosts names it' }),
  state: enumOf('none', 'pending', 'issued', 'failed'),
  issuer: nullable(str({ description: 'The issuer of the certificate held (organization, common name), read from its chain' })),
  serial: nullable(str({ description: 'Serial number of the certificate held, hexadecimal' })),
  notAfter: { ...nullableTimestamp, description: 'When the certificate held expires; it is renewed ACME_RENEW_BEFORE_DAYS (30) before' },
  error: nullable(str({ description: 'Why the last order failed: the CA\'s problem detail; null once an order succeeds' })),
  lastAttemptAt: nullableTimestamp,
  nextAttemptAt: { ...nullableTimestamp, description: 'After a failure, when the order is tried again (the wait doubles per failure, at most six hours)' },
}, ['host', 'state', 'issuer', 'serial', 'notAfter', 'error', 'lastAttemptAt', 'nextAttemptAt']);

/** base64url, as RFC 8555 tokens are; anything else is no token of ours. */
const TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

// `none` is a row made a moment before its first order: for a `tls: auto` host that is pending
const view = (row: CertificateView) => ({
  host: row.host, state: row.state === 'none' ? 'pending' : row.state, issuer: row.issuer, serial: row.serial, notAfter: row.notAfter, error: row.error,
  lastAttemptAt: row.lastAttemptAt, nextAttemptAt: row.nextAttemptAt,
});

export default function certificateRoutes(s: Services) {
  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/environments/{envId}/certificates', operationId: 'listCertificates', tag: 'ingress', access: 'viewer',
      load: environmentOf(s), query: paginationQuery, response: listOf(certificateRead),
      summary: 'The environment\'s certificates: every host its services want TLS auto for, and each certificate held (never its key)',
      description: 'A host no certificate was issued for yet is state pending. A failed renewal keeps the certificate held: issuer and notAfter are still its, error says why the order failed.',
      async handler(_ctx, { params, query }) {
        const rows = await s.certificates.listByEnvironment(params.envId);
        const held = new Set(rows.map((r) => r.host));
        const waiting = (await s.certificates.desiredHosts(params.envId)).filter((d) => !held.has(d.host)).map((d): CertificateView => ({
          host: d.host, state: 'pending', issuer: null, serial: null, notAfter: null, issuedAt: null, error: null, lastAttemptAt: null, nextAttemptAt: null,
        }));
        const all = [...rows, ...waiting].sort((a, b) => a.host.localeCompare(b.host)).map(view);
        return { items: all.slice(query.offset, query.offset + query.limit), total: all.length, limit: query.limit, offset: query.offset };
      },
    }),
    route({
      method: 'GET', path: '/.well-known/acme-challenge/{token}', operationId: 'getAcmeChallenge', tag: 'ingress', access: 'public',
      summary: 'The key authorization of an open HTTP-01 challenge (RFC 8555 §8.3), for the CA; needs no token',
      description: 'Every server\'s proxy forwards this path on its HTTP port to the controller; any replica answers from the store. 404 when no open order has the token.',
      response: str({ description: 'The key authorization: the token, a dot and the account key\'s thumbprint' }), responseType: 'text/plain',
      errors: [404], audit: false,
      async handler(_ctx, { params }) {
        const answer = TOKEN.test(params.token) ? await s.acme.keyAuthorization(params.token) : null;
        if (answer === null) throw notFound('Challenge');
        return result(200, answer, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      },
    }),
  ];
}
