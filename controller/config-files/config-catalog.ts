import type { ConfigReads } from '../store/repositories/config-reads.js';
import type { Trx } from '../store/transaction.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { AppError } from '../errors/app-error.js';
import type { ConfigFileRow } from '../store/repositories/config-files.js';
import { referencesOf } from './placeholders.js';
import { render, type RenderContext, type RenderResult } from './render.js';
import { Secret } from './secret.js';

export interface NamedRef { id: string; name: string }
export interface KeyUsage { configFiles: NamedRef[]; services: NamedRef[] }

/**
 * Reads one environment's configuration as rendering needs it: vars, secrets (as Secret
 * wrappers, decrypted only when asked to), fragments; and who uses which key or fragment.
 */
export class ConfigCatalog {
  constructor(private readonly reads: ConfigReads, private readonly secretBox: SecretBox) {}

  /** `reveal` false: secrets are present but hold no value (enough for redacted previews). */
  async renderContext(environmentId: string, reveal: boolean, trx?: Trx): Promise<RenderContext> {
    const { vars, secrets, fragments } = await this.reads.renderInputs(environmentId, trx);
    return {
      vars: new Map(vars.map((v: { key: string; value: string }) => [v.key, v.value])),
      secrets: new Map(secrets.map((s: { key: string; valueSealed: string }) =>
        [s.key, new Secret(reveal ? this.secretBox.open(s.valueSealed) : '')])),
      fragments: new Map(fragments.map((f: { name: string; content: string }) => [f.name, f.content])),
    };
  }

  /** The vars and the secrets' values a service's env renders from (no fragments: they are for files). */
  async envSources(environmentId: string): Promise<{ vars: Record<string, string>; secrets: Record<string, string> }> {
    const { vars, secrets } = await this.reads.renderInputs(environmentId, undefined, false);
    return {
      vars: Object.fromEntries(vars.map((v) => [v.key, v.value])),
      secrets: Object.fromEntries(secrets.map((s) => [s.key, this.secretBox.open(s.valueSealed)])),
    };
  }

  /** Every secret value the environment has or had: a file on disk may still hold an old one. */
  async secretValuesForRedaction(environmentId: string): Promise<string[]> {
    const values = new Set<string>();
    for (const sealed of await this.reads.sealedSecretValues(environmentId)) values.add(this.secretBox.open(sealed));
    return [...values].filter((v) => v.length > 0).sort((a, b) => b.length - a.length);
  }

  /**
   * The content a file writes to disk. Refuses (VALIDATION_ERROR naming the keys, never values)
   * when a placeholder or fragment cannot be resolved: an empty value must never reach a server.
   */
  renderForSync(file: ConfigFileRow, ctx: RenderContext): Buffer {
    if (file.kind === 'asset') return file.data ?? Buffer.alloc(0);
    const out = render(file.content ?? '', ctx);
    assertResolved(out, file.name);
    return Buffer.from(out.content, 'utf8');
  }

  /** Usage of every key and fragment of the environment (reads of secrets, vars, fragments). */
  async usage(environmentId: string): Promise<{ keys: Map<string, KeyUsage>; fragments: Map<string, NamedRef[]> }> {
    const { files, fragments, services, attachments } = await this.reads.usageInputs(environmentId);
    const fragmentKeys = new Map<string, string[]>(fragments.map((f: { name: string; content: string }) => [f.name, referencesOf(f.content).keys]));
    const serviceName = new Map<string, string>(services.map((s: { id: string; name: string }) => [s.id, s.name]));
    const keys = new Map<string, KeyUsage>();
    const entry = (k: string) => {
      let u = keys.get(k);
      if (!u) keys.set(k, (u = { configFiles: [], services: [] }));
      return u;
    };
    const addService = (u: KeyUsage, id: string) => {
      if (!u.services.some((s) => s.id === id)) u.services.push({ id, name: serviceName.get(id) ?? id });
    };
    const fragmentUsers = new Map<string, NamedRef[]>();
    for (const f of files as Array<{ id: string; name: string; content: string | null }>) {
      const refs = referencesOf(f.content ?? '');
      const allKeys = new Set(refs.keys);
      for (const name of refs.fragments) {
        for (const k of fragmentKeys.get(name) ?? []) allKeys.add(k);
        const users = fragmentUsers.get(name) ?? [];
        users.push({ id: f.id, name: f.name });
        fragmentUsers.set(name, users);
      }
      const attachedTo = (attachments as Array<{ configFileId: string; serviceId: string }>).filter((a) => a.configFileId === f.id);
      for (const k of allKeys) {
        const u = entry(k);
        u.configFiles.push({ id: f.id, name: f.name });
        for (const a of attachedTo) addService(u, a.serviceId);
      }
    }
    for (const s of services as Array<{ id: string; env: Record<string, string> | null }>) {
      for (const v of Object.values(s.env ?? {})) {
        if (typeof v === 'string') for (const k of referencesOf(v).keys) addService(entry(k), s.id);
      }
    }
    return { keys, fragments: fragmentUsers };
  }
}

export function assertResolved(out: RenderResult, fileName: string): void {
  if (out.unresolvedKeys.length === 0 && out.unknownFragments.length === 0) return;
  const parts = [
    out.unresolvedKeys.length ? `unknown keys ${out.unresolvedKeys.join(', ')}` : '',
    out.unknownFragments.length ? `unknown fragments ${out.unknownFragments.join(', ')}` : '',
  ].filter(Boolean);
  throw new AppError('VALIDATION_ERROR', `Config file ${fileName} cannot be rendered: ${parts.join('; ')}`, {
    field: 'content',
    hint: 'Create the missing secrets, vars or fragments in the environment, then sync again',
    details: { unresolvedKeys: out.unresolvedKeys, unknownFragments: out.unknownFragments },
  });
}

