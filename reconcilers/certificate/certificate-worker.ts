// The certificate reconciler: one key per (environment, host) a service wants TLS `auto` for,
// `certificate/<environmentId>/<host>`. A pass re-reads whether the host is still wanted and its
// row, and orders a certificate when there is none, when it is due for renewal
// (ACME_RENEW_BEFORE_DAYS before notAfter), or when a failed order's backoff has passed. A failed
// order leaves the previous certificate in place, records the CA's words and raises one
// `certificate.failed` per run of failures. The scheduler's pass (SCHEDULER_CERTIFICATE_SEC, the
// leader's) enqueues what is due; anyone may enqueue a key for an immediate look.
import type { Services } from '../../controller/services.js';
import { AcmeIssuer } from '../../controller/ingress/acme/acme-issuer.js';
import { chainFacts, retryDelaySec } from '../../controller/ingress/acme/certificate-facts.js';
import { CERTIFICATE_CHANGED, CERTIFICATE_FAILED } from '../../controller/ingress/acme/held-certificates.js';
import { dueReason } from './due.js';

export const CERTIFICATE_KIND = 'certificate';
export const certificateKey = (environmentId: string, host: string) => `${CERTIFICATE_KIND}/${environmentId}/${host.toLowerCase()}`;

export async function startCertificateWorker(s: Services): Promise<() => Promise<void>> {
  const issuer = new AcmeIssuer(s.config.acme, s.acme, s.outgoing);
  s.queue.register(CERTIFICATE_KIND, (id) => reconcileCertificate(s, issuer, id));
  s.scheduler.every('certificates', s.config.scheduler.certificateSec, () => enqueueDue(s));
  return async () => {};
}

/**
 * The scheduler's pass: every wanted host whose certificate is missing, due for renewal or due a
 * retry is queued; the certificates of hosts no service wants any more are removed (a host named
 * again later is ordered again).
 */
export async function enqueueDue(s: Services): Promise<void> {
  const now = new Date();
  const desired = await s.certificates.desiredHosts();
  const pruned = await s.certificates.pruneUnwanted(desired);
  if (pruned) s.logger.info('certificates of hosts no service wants removed', { count: pruned });
  const rows = new Map((await s.certificates.listAll()).map((r) => [`${r.environmentId}/${r.host}`, r]));
  for (const d of desired) {
    if (dueReason(rows.get(`${d.environmentId}/${d.host}`), now, s.config.acme.renewBeforeDays)) s.queue.add(certificateKey(d.environmentId, d.host));
  }
}

async function reconcileCertificate(s: Services, issuer: AcmeIssuer, id: string): Promise<{ requeueAfterMs?: number } | void> {
  const at = id.indexOf('/');
  const environmentId = id.slice(0, at);
  const host = id.slice(at + 1);
  // one order per host across replicas: the others leave it to the holder
  const held = await s.locks.tryHolding([CERTIFICATE_KIND, id], async () => {
    const wanted = (await s.certificates.desiredHosts(environmentId)).some((d) => d.host === host);
    if (!wanted) return undefined;
    const row = await s.certificates.ensure(environmentId, host);
    const reason = dueReason(row, new Date(), s.config.acme.renewBeforeDays);
    if (!reason) return undefined;
    await s.certificates.markPending(environmentId, host);
    s.logger.info('ordering a certificate', { environmentId, host, reason });
    try {
      const { chainPem, keyPem } = await issuer.issue(host);
      const facts = chainFacts(chainPem);
      if (!facts.names.includes(host)) throw new Error(`the CA issued a certificate for ${facts.names.join(', ') || 'no name'}, not ${host}`);
      await s.certificates.storeIssued(environmentId, host, chainPem, keyPem, facts);
      s.logger.info('certificate issued', { environmentId, host, issuer: facts.issuer, notAfter: facts.notAfter.toISOString() });
      await s.events.publish(CERTIFICATE_CHANGED, environmentId, { host, serial: facts.serial, issuer: facts.issuer, notAfter: facts.notAfter.toISOString() });
      return undefined;
    } catch (e) {
      const error = (e as Error).message || String(e);
      const failures = await s.certificates.recordFailure(environmentId, host, error, (n) => retryDelaySec(n, s.config.acme.retryBaseSec));
      s.logger.warn('certificate order failed', { environmentId, host, failures, error });
      const kept = await s.certificates.find(environmentId, host);
      // one notification per run of failures: the retries that fail again say nothing new
      if (failures === 1) {
        await s.events.publish(CERTIFICATE_FAILED, environmentId, {
          host, error, message: `The certificate for ${host} could not be ${kept?.notAfter ? 'renewed' : 'issued'}: ${error}`,
          ...(kept?.notAfter ? { notAfter: kept.notAfter.toISOString() } : {}),
        });
      }
      return { requeueAfterMs: retryDelaySec(failures, s.config.acme.retryBaseSec) * 1000 };
    }
  });
  return held.held ? held.value : undefined;
}
