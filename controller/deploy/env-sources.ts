// Where ${KEY} placeholders of a service's env come from: the environment's vars and secrets.
// Those tables belong to another part of the product; until they exist this reads nothing, and a
// placeholder nobody defines stops the deploy with a clear message.
import type { Knex } from 'knex';
import type { SecretBox } from '../crypto/secret-box.js';
import type { EnvSources } from './compose/render-env.js';

export async function loadEnvSources(db: Knex, secretBox: SecretBox, environmentId: string): Promise<EnvSources> {
  const out: EnvSources = { vars: {}, secrets: {} };
  if (await db.schema.hasTable('vars')) {
    for (const r of await db('vars').where({ environmentId }).select('key', 'value')) out.vars[r.key] = String(r.value);
  }
  if (await db.schema.hasTable('secrets')) {
    const cols = await db('secrets').columnInfo();
    const sealedCol = ['valueSealed', 'sealedValue', 'valueEncrypted', 'encryptedValue'].find((c) => c in cols);
    if (sealedCol) {
      for (const r of await db('secrets').where({ environmentId }).select('key', sealedCol)) {
        out.secrets[r.key] = secretBox.open(r[sealedCol]);
      }
    }
  }
  return out;
}
