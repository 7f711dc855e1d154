// What the controller reads of a certificate chain it was issued, and when it acts on one: pure
// functions (test/unit/ingress/certificate-facts.test.ts).
import { X509Certificate } from 'node:crypto';

export interface ChainFacts {
  /** The issuer of the leaf: its organization and common name as the CA wrote them. */
  issuer: string;
  notAfter: Date;
  serial: string;
  /** DNS names the leaf covers. */
  names: string[];
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The PEM blocks of a chain, leaf first (as an ACME server hands it out). */
export function splitChain(pem: string): string[] {
  return pem.match(PEM_BLOCK) ?? [];
}

/** The leaf's issuer, expiry, serial and names; throws when the text holds no certificate. */
export function chainFacts(pem: string): ChainFacts {
  const [leafPem] = splitChain(pem);
  if (!leafPem) throw new Error('the chain holds no PEM certificate');
  const leaf = new X509Certificate(leafPem);
  const fields = new Map(leaf.issuer.split('\n').map((line) => {
    const at = line.indexOf('=');
    return [line.slice(0, at), line.slice(at + 1)] as const;
  }));
  const issuer = [fields.get('O'), fields.get('CN')].filter(Boolean).join(', ') || leaf.issuer.replace(/\n/g, ', ');
  const names = (leaf.subjectAltName ?? '').split(', ').filter((n) => n.startsWith('DNS:')).map((n) => n.slice(4));
  return { issuer, notAfter: new Date(leaf.validTo), serial: leaf.serialNumber, names };
}

/** Whether a certificate expiring at `notAfter` is due for renewal at `now`. */
export function renewalDue(notAfter: Date, now: Date, renewBeforeDays: number): boolean {
  return notAfter.getTime() - now.getTime() <= renewBeforeDays * 86_400_000;
}

/** The longest wait between two attempts of a failing order. */
export const MAX_RETRY_SEC = 6 * 3600;

/** Seconds to wait after the `failures`-th failure in a row: base, doubling, at most six hours. */
export function retryDelaySec(failures: number, baseSec: number): number {
  return Math.min(MAX_RETRY_SEC, baseSec * 2 ** Math.max(0, failures - 1));
}
