import type { Knex } from 'knex';
import type { SecretBox } from '../../crypto/secret-box.js';

/**
 * The ACME side of certificates: the installation's account key per directory URL (sealed), and
 * the HTTP-01 key authorizations of open orders. Challenges live in PostgreSQL so that any
 * replica a proxy forwards `/.well-known/acme-challenge/` to answers them.
 */
export class AcmeRepository {
  constructor(private readonly db: Knex, private readonly box: SecretBox) {}

  /** The account key for `directoryUrl`: the stored one, or `create()`'s, stored first by whichever replica gets there. */
  async accountKey(directoryUrl: string, create: () => Promise<string>): Promise<string> {
    const found = await this.db('acme_accounts').where({ directoryUrl }).first() as { keySealed: string } | undefined;
    if (found) return this.box.open(found.keySealed);
    await this.db('acme_accounts').insert({ directoryUrl, keySealed: this.box.seal(await create()) }).onConflict('directoryUrl').ignore();
    const row = await this.db('acme_accounts').where({ directoryUrl }).first() as { keySealed: string };
    return this.box.open(row.keySealed);
  }

  async putChallenge(token: string, keyAuthorization: string, host: string, ttlSec: number): Promise<void> {
    await this.db('acme_challenges').insert({
      token, keyAuthorization, host, expiresAt: this.db.raw('now() + make_interval(secs => ?)', [ttlSec]),
    }).onConflict('token').merge();
  }

  /** The key authorization for `token` while its order is open, or null. */
  async keyAuthorization(token: string): Promise<string | null> {
    const row = await this.db('acme_challenges').where({ token }).where('expiresAt', '>', this.db.fn.now()).first('keyAuthorization') as { keyAuthorization: string } | undefined;
    return row?.keyAuthorization ?? null;
  }

  /** Removes the given tokens, and any challenge whose order outlived its time. */
  async removeChallenges(tokens: string[]): Promise<void> {
    await this.db('acme_challenges').whereIn('token', tokens).orWhere('expiresAt', '<=', this.db.fn.now()).delete();
  }
}
