// What an ingress host is served with and its state (controller/ingress/certificates.ts decides it).

export interface PemCertificate { certificatePem: string; keyPem: string }

export type CertificateState = 'none' | 'pending' | 'issued' | 'failed';

export interface HostCertificate {
  state: CertificateState;
  issuer: string | null;
  /** ISO time the leaf stops being valid. */
  notAfter: string | null;
  error: string | null;
  /** What the proxy serves; only when state is issued. Never shown by the API. */
  pem: PemCertificate | null;
}
