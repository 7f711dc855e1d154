// Where a `tls: auto` host's certificate comes from: the controller's ACME issuance (issue 36,
// item 3), which stores certificates encrypted in PostgreSQL once for every server. Until that
// issuance is part of the controller nothing issues them, so such a host is pending: the proxy
// serves it over plain HTTP (and forwards /.well-known/acme-challenge/ to the controller), never
// with a made-up certificate.
import type { Services } from '../services.js';
import type { HostCertificate } from './host-certificate.js';

export async function acmeCertificateFor(_s: Pick<Services, 'config'>, _environmentId: string, _host: string): Promise<HostCertificate> {
  return { state: 'pending', issuer: null, notAfter: null, error: null, pem: null };
}
