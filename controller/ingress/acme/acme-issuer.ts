// Issues one host's certificate through ACME with acme-client (a maintained RFC 8555 client: JWS,
// nonces, retries and polling are its, not ours), HTTP-01: the key authorization is stored where
// every replica answers `/.well-known/acme-challenge/<token>` (api/routes/certificates.ts), and
// every server's proxy forwards that path to the controller. The directory is operator-set
// (ACME_DIRECTORY_URL) and every request to it and to the URLs it hands out goes through the
// outgoing guard (controller/net/outgoing-guard.ts): its check before each request, its lookup
// for each connection.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import * as acme from 'acme-client';
import type { AcmeConfig } from '../../config/config.js';
import type { OutgoingGuard } from '../../net/outgoing-guard.js';
import type { AcmeRepository } from '../../store/repositories/acme.js';

/** How long a stored challenge answers: an order that takes longer failed anyway. */
const CHALLENGE_TTL_SEC = 15 * 60;

export interface IssuedChain { chainPem: string; keyPem: string }

/** An order the CA refused or could not finish: `message` is its problem detail (or the connection's error). */
export class AcmeOrderFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AcmeOrderFailed';
  }
}

/**
 * acme-client talks through one axios instance per process: its agents are set here from the
 * issuer about to order, and one request interceptor asks that issuer's guard about every URL.
 */
let activeGuard: OutgoingGuard | null = null;
let intercepting = false;
function useTransport(guard: OutgoingGuard, ca: string[] | undefined): void {
  activeGuard = guard;
  acme.axios.defaults.httpAgent = new http.Agent({ lookup: guard.lookup as never });
  acme.axios.defaults.httpsAgent = new https.Agent({ lookup: guard.lookup as never, ...(ca ? { ca } : {}) });
  // a directory that does not answer fails the order in seconds, not after five long retries: the
  // certificate reconciler retries the whole order with its own backoff
  (acme.axios.defaults as { acmeSettings?: { retryMaxAttempts: number } }).acmeSettings!.retryMaxAttempts = 2;
  if (intercepting) return;
  intercepting = true;
  acme.axios.interceptors.request.use(async (config) => {
    // IP literals never reach the agent's lookup: the guard's check sees every URL first
    await activeGuard!.check(new URL(config.url!, config.baseURL));
    return config;
  });
}

export class AcmeIssuer {
  constructor(private readonly config: AcmeConfig, private readonly store: AcmeRepository, private readonly guard: OutgoingGuard) {}

  /** A new certificate for `host` (its key made here, never sent anywhere): the chain leaf first, and its key. */
  async issue(host: string): Promise<IssuedChain> {
    const ca = this.config.caCertFile ? [...tls.rootCertificates, fs.readFileSync(this.config.caCertFile, 'utf8')] : undefined;
    useTransport(this.guard, ca);
    const accountKey = await this.store.accountKey(this.config.directoryUrl, async () => (await acme.crypto.createPrivateEcdsaKey()).toString());
    const client = new acme.Client({ directoryUrl: this.config.directoryUrl, accountKey, backoffAttempts: 20, backoffMin: 250, backoffMax: 3000 });
    const tokens: string[] = [];
    try {
      await client.createAccount({ termsOfServiceAgreed: true, ...(this.config.email ? { contact: [`mailto:${this.config.email}`] } : {}) });
      const order = await client.createOrder({ identifiers: [{ type: 'dns', value: host }] });
      for (const authz of await client.getAuthorizations(order)) {
        if (authz.status === 'valid') continue;
        const challenge = authz.challenges.find((c) => c.type === 'http-01');
        if (!challenge) throw new AcmeOrderFailed(`the CA offers no HTTP-01 challenge for ${authz.identifier.value}`);
        await this.store.putChallenge(challenge.token, await client.getChallengeKeyAuthorization(challenge), host, CHALLENGE_TTL_SEC);
        tokens.push(challenge.token);
        await client.completeChallenge(challenge);
        await client.waitForValidStatus(challenge);
      }
      const [key, csr] = await acme.crypto.createCsr({ commonName: host, altNames: [host] }, await acme.crypto.createPrivateEcdsaKey());
      const finalized = await client.finalizeOrder(order, csr);
      const chainPem = await client.getCertificate(finalized);
      return { chainPem, keyPem: key.toString() };
    } catch (e) {
      throw e instanceof AcmeOrderFailed ? e : new AcmeOrderFailed(errorText(e));
    } finally {
      await this.store.removeChallenges(tokens);
    }
  }
}

/** The words of a failure: acme-client's message is the CA's problem detail; a socket error names its cause. */
function errorText(e: unknown): string {
  const err = e as { message?: string; code?: string; cause?: { message?: string } };
  const text = err?.message || err?.code || String(e);
  return err?.cause?.message && !text.includes(err.cause.message) ? `${text}: ${err.cause.message}` : text;
}
