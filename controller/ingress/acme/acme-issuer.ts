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
import { AsyncLocalStorage } from 'node:async_hooks';
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

/** The order under way in this async context: its guard and agents, and the last URL it requested. */
interface OrderContext { guard: OutgoingGuard; httpAgent: http.Agent; httpsAgent: https.Agent; lastUrl: string | null }
const orders = new AsyncLocalStorage<OrderContext>();

/**
 * acme-client talks through one axios instance per process. One request interceptor, installed
 * once, gives each request the agents of the order it belongs to and asks that order's guard
 * about the URL first (IP literals never reach an agent's lookup).
 */
let intercepting = false;
function interceptOnce(): void {
  if (intercepting) return;
  intercepting = true;
  // a directory that does not answer fails the order in seconds, not after five long retries: the
  // certificate reconciler retries the whole order with its own backoff
  (acme.axios.defaults as { acmeSettings?: { retryMaxAttempts: number } }).acmeSettings!.retryMaxAttempts = 2;
  acme.axios.interceptors.request.use(async (config) => {
    const order = orders.getStore();
    if (!order) throw new Error('an ACME request outside an order');
    const url = new URL(config.url!, config.baseURL);
    await order.guard.check(url);
    order.lastUrl = url.href;
    config.httpAgent = order.httpAgent;
    config.httpsAgent = order.httpsAgent;
    return config;
  });
}

export class AcmeIssuer {
  constructor(private readonly config: AcmeConfig, private readonly store: AcmeRepository, private readonly guard: OutgoingGuard) {}

  /** A new certificate for `host` (its key made here, never sent anywhere): the chain leaf first, and its key. */
  async issue(host: string): Promise<IssuedChain> {
    const ca = this.config.caCertFile ? [...tls.rootCertificates, fs.readFileSync(this.config.caCertFile, 'utf8')] : undefined;
    interceptOnce();
    const order: OrderContext = {
      guard: this.guard, lastUrl: null,
      httpAgent: new http.Agent({ lookup: this.guard.lookup as never }),
      httpsAgent: new https.Agent({ lookup: this.guard.lookup as never, ...(ca ? { ca } : {}) }),
    };
    try {
      return await orders.run(order, () => this.order(host));
    } finally {
      order.httpAgent.destroy();
      order.httpsAgent.destroy();
    }
  }

  private async order(host: string): Promise<IssuedChain> {
    const accountKey = await this.store.accountKey(this.config.directoryUrl, async () => (await acme.crypto.createPrivateEcdsaKey()).toString());
    const client = new acme.Client({ directoryUrl: this.config.directoryUrl, accountKey, backoffAttempts: 20, backoffMin: 250, backoffMax: 3000 });
    const tokens: string[] = [];
    try {
      await ensureAccount(client, this.config.email);
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
      throw e instanceof AcmeOrderFailed ? e : new AcmeOrderFailed(errorText(e, orders.getStore()?.lastUrl ?? null));
    } finally {
      await this.store.removeChallenges(tokens);
    }
  }
}

/**
 * The CA's account of this key: looked up first (`onlyReturnExisting`, then a POST-as-GET), made
 * only when the CA has none. Asking to create it again would send an existing account an update
 * with nothing in it when no contact is configured, which RFC 8555 lets a CA refuse (Pebble does).
 */
async function ensureAccount(client: acme.Client, email: string | null): Promise<void> {
  try {
    await client.createAccount({ onlyReturnExisting: true });
    return;
  } catch (e) {
    // a connection that failed (an axios error, a code, or no answer at all) is no answer about the
    // account: said as it is. Anything else is the CA's problem document, which for a lookup is
    // `accountDoesNotExist` (RFC 8555 §7.3.1); acme-client keeps only its detail text, whose words
    // differ by CA, so the shape is what is read here, not the words
    const err = e as { isAxiosError?: boolean; code?: string };
    if (e instanceof TypeError || err.isAxiosError || err.code) throw e;
  }
  await client.createAccount({ termsOfServiceAgreed: true, ...(email ? { contact: [`mailto:${email}`] } : {}) });
}

/**
 * The words of a failure: acme-client's message is the CA's problem detail; a socket error names
 * its cause. A request that got no answer at all, retries spent, reaches acme-client's response
 * check without a response, which fails reading it (a TypeError): said as what it is.
 */
function errorText(e: unknown, lastUrl: string | null): string {
  if (e instanceof TypeError && /Cannot read properties of undefined/.test(e.message) && /acme-client/.test(e.stack ?? '')) return `no answer from ${lastUrl ?? 'the ACME directory'}`;
  const err = e as { message?: string; code?: string; cause?: { message?: string } };
  const text = err?.message || err?.code || String(e);
  return err?.cause?.message && !text.includes(err.cause.message) ? `${text}: ${err.cause.message}` : text;
}
