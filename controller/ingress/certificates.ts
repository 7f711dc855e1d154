// The certificate each ingress host is served with, and its state as GET /api/services/{id}/ingress
// reports it (DECISIONS, Wave 4): none (tls off), pending (tls auto, nothing issued yet), issued,
// failed (with the error). A `tls: {secretRef}` certificate is a secret of the service's
// environment holding the PEM chain and the private key; a `tls: auto` one comes from the
// controller's ACME issuance (acme/held-certificates.ts: a host whose renewal failed keeps the one
// it had). Nothing here ever puts a key in a message.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { Services } from '../services.js';
import { tlsSecretOf, type ResolvedIngress } from '../model/ingress.js';
import { heldCertificate } from './acme/held-certificates.js';

import type { HostCertificate } from './host-certificate.js';

export type { CertificateState, HostCertificate, PemCertificate } from './host-certificate.js';

export const NO_CERTIFICATE: HostCertificate = { state: 'none', issuer: null, notAfter: null, error: null, pem: null };
const failed = (error: string): HostCertificate => ({ ...NO_CERTIFICATE, state: 'failed', error });

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** The leaf's issuer as one line: "CN=…, O=…" (X509Certificate gives one field a line). */
const oneLine = (dn: string) => dn.split('\n').filter(Boolean).join(', ');

/**
 * A PEM bundle (certificate chain, leaf first, and a private key, in any order) checked for the
 * host: the key belongs to the leaf, the leaf names the host and is valid now. `at` for tests.
 */
export function certificateFromPem(bundle: string, host: string, at = new Date()): HostCertificate {
  const blocks = [...bundle.matchAll(PEM_BLOCK)].map((m) => ({ type: m[1]!, text: m[0] }));
  const certs = blocks.filter((b) => b.type === 'CERTIFICATE');
  const keys = blocks.filter((b) => /PRIVATE KEY$/.test(b.type));
  if (!certs.length) return failed('the secret holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  if (keys.length !== 1) return failed(`the secret must hold one PEM private key after the certificate chain (found ${keys.length})`);
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certs[0]!.text);
  } catch {
    return failed('the first certificate of the secret cannot be read');
  }
  let keyMatches = false;
  try {
    keyMatches = leaf.checkPrivateKey(createPrivateKey(keys[0]!.text));
  } catch {
    return failed('the private key of the secret cannot be read');
  }
  const base = { issuer: oneLine(leaf.issuer), notAfter: new Date(leaf.validTo).toISOString() };
  if (!keyMatches) return { ...failed('the private key does not belong to the first certificate'), ...base };
  if (!leaf.checkHost(host)) return { ...failed(`the certificate does not name ${host}`), ...base };
  if (new Date(leaf.validTo) <= at) return { ...failed(`the certificate expired on ${base.notAfter}`), ...base };
  if (new Date(leaf.validFrom) > at) return { ...failed(`the certificate is not valid before ${new Date(leaf.validFrom).toISOString()}`), ...base };
  return {
    state: 'issued', ...base, error: null,
    pem: { certificatePem: `${certs.map((c) => c.text).join('\n')}\n`, keyPem: `${keys[0]!.text}\n` },
  };
}

/** Each host's certificate for one service's ingress (one read of the environment's secrets when a secret is named). */
export async function certificatesFor(s: Pick<Services, 'configStore' | 'certificates'>, environmentId: string,
  ingress: ResolvedIngress): Promise<Map<string, HostCertificate>> {
  const out = new Map<string, HostCertificate>();
  if (ingress.tls === 'off') {
    for (const h of ingress.hosts) out.set(h, NO_CERTIFICATE);
    return out;
  }
  const secret = tlsSecretOf(ingress.tls);
  if (secret) {
    const value = (await s.configStore.catalog.envSources(environmentId)).secrets[secret];
    for (const h of ingress.hosts) out.set(h, value === undefined ? failed(`no secret ${secret} in the environment`) : certificateFromPem(value, h));
    return out;
  }
  for (const h of ingress.hosts) out.set(h, await heldCertificate(s, environmentId, h));
  return out;
}
