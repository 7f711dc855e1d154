// What the proxy side reads of certificates (docs/ingress.md#certificates): the certificates the
// controller holds for a server's hosts, opened, and the event that says one changed. The
// certificate reconciler (reconcilers/certificate/) writes them; nothing else does.
import type { Services } from '../services.js';
import type { InstalledCertificate } from '../store/repositories/certificates.js';

export type { InstalledCertificate };

/**
 * Published (environment, `{host, serial, notAfter, issuer}`) when a new certificate for `host`
 * is stored: every replica hears it (LISTEN/NOTIFY); the proxy reconciler re-renders the servers
 * that serve the host. Never carries the chain or the key.
 */
export const CERTIFICATE_CHANGED = 'certificate.changed';

/** A renewal or first order that failed (a notification type: controller/notifications/types.ts). */
export const CERTIFICATE_FAILED = 'certificate.failed';

/**
 * The certificates held for `hosts` of the environment: chain (leaf first) and key as PEM, and
 * the chain's notAfter. A host without one is left out; a host whose renewal failed keeps the
 * certificate it had. For the proxy's renderer only: never answer it over the API.
 */
export function certificatesFor(s: Pick<Services, 'certificates'>, environmentId: string, hosts: string[]): Promise<InstalledCertificate[]> {
  return s.certificates.installed(environmentId, hosts);
}
