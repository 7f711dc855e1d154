// What the proxy side reads of the certificates from ACME (docs/ingress.md#certificates): the
// certificate held for a host, opened, in the shape the proxy's renderer and the ingress status
// take, and the event that says one changed. The certificate reconciler (reconcilers/certificate/)
// writes them; nothing else does. Kept under acme/: the proxy's controller/ingress/certificates.ts
// decides per host between a secret's certificate and this one.
import type { Services } from '../../services.js';
import type { CertificateState, InstalledCertificate } from '../../store/repositories/certificates.js';

export type { InstalledCertificate };

/**
 * Published (environment, `{host, serial, issuer, notAfter}`) when a new certificate for `host`
 * is stored: every replica hears it (LISTEN/NOTIFY); the proxy reconciler re-renders the servers
 * that serve the host. Never carries the chain or the key.
 */
export const CERTIFICATE_CHANGED = 'certificate.changed';

/** A renewal or first order that failed (a notification type: controller/notifications/types.ts). */
export const CERTIFICATE_FAILED = 'certificate.failed';

/** One `tls: auto` host's certificate as the proxy serves it and GET /api/services/{id}/ingress reports it. */
export interface HeldCertificate {
  /** pending: wanted, none issued yet (or an order under way); failed: the last order failed (error says why). */
  state: CertificateState;
  issuer: string | null;
  /** ISO time the certificate held stops being valid. */
  notAfter: string | null;
  error: string | null;
  /**
   * What the proxy serves: the chain (leaf first) and its key, whenever one is held. A host whose
   * renewal failed (state failed) keeps serving the certificate it had. Never shown by the API.
   */
  pem: { certificatePem: string; keyPem: string } | null;
}

/** The certificates held for `hosts` of the environment, opened; a host without one is left out. */
export function heldCertificates(s: Pick<Services, 'certificates'>, environmentId: string, hosts: string[]): Promise<InstalledCertificate[]> {
  return s.certificates.installed(environmentId, hosts);
}

/** The certificate from ACME for one host of the environment, with its state and last error. */
export async function heldCertificate(s: Pick<Services, 'certificates'>, environmentId: string, host: string): Promise<HeldCertificate> {
  const row = await s.certificates.find(environmentId, host.toLowerCase());
  const [held] = row?.chainSealed ? await s.certificates.installed(environmentId, [row.host]) : [];
  return {
    state: !row || row.state === 'none' ? 'pending' : row.state,
    issuer: row?.issuer ?? null,
    notAfter: row?.notAfter?.toISOString() ?? null,
    error: row?.error ?? null,
    pem: held ? { certificatePem: held.certPem, keyPem: held.keyPem } : null,
  };
}
