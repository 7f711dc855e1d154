import { createHmac } from 'node:crypto';
import type { Logger } from '../logger.js';
import { isAppError } from '../errors/app-error.js';
import type { ConfigAttachmentsRepository } from '../store/repositories/config-attachments.js';
import type { ConfigFileRow } from '../store/repositories/config-files.js';
import type { ConfigCatalog } from './config-catalog.js';
import type { SyncTarget } from './sync-targets.js';
import { redactedDiff } from './redacted-diff.js';

/** The part of services.hosts a sync needs (controller/hosts/host-access.ts). */
export interface HostFiles {
  readFile(serverId: string, path: string): Promise<Buffer | null>;
  writeFile(serverId: string, path: string, content: string | Buffer, opts?: { mode?: number }): Promise<void>;
  exec(serverId: string, argv: string[], opts?: { check?: boolean }): Promise<{ stdout: string; code: number }>;
}

export type TargetStatus = 'written' | 'unchanged' | 'failed' | 'skipped' | 'would-create' | 'would-change' | 'restored' | 'removed';

export interface TargetResult extends SyncTarget {
  status: TargetStatus;
  error?: string;
  /** Dry run: unified diff of what would change on disk, secret values redacted. */
  diff?: string;
  contentHash?: string;
}

export type SyncStep = 'render' | 'read' | 'write';

export interface BatchResult {
  status: 'succeeded' | 'failed';
  rolledBack: boolean;
  targets: TargetResult[];
  failure?: { step: SyncStep; configFileId: string; attachmentId?: string; serverId?: string; targetPath?: string; message: string };
  restored: Array<{ attachmentId: string; serverId: string; targetPath: string; action: 'restored' | 'removed'; ok: boolean; error?: string }>;
}


/** Host and render errors as text for a response: our messages only, never file content. */
const describe = (e: unknown): string => (isAppError(e) || e instanceof Error ? e.message : String(e)).slice(0, 500);

/**
 * Writes rendered config files to servers through the host layer (SFTP temp file + atomic
 * rename). Single syncs treat targets independently; a batch is all-or-nothing.
 */
export class ConfigSync {
  constructor(private readonly hosts: HostFiles, private readonly catalog: ConfigCatalog,
    private readonly attachments: ConfigAttachmentsRepository, private readonly logger: Logger,
    private readonly hashKey: Buffer) {}

  /**
   * Fingerprint of written bytes (sync state, responses): keyed, so a known file layout cannot be
   * used to guess a low-entropy secret value offline from the hash.
   */
  private sha256(b: Buffer): string {
    return createHmac('sha256', this.hashKey).update(b).digest('hex');
  }

  /** Renders each file once (one environment context per environment). Throws on unresolved keys. */
  private async renderAll(files: ConfigFileRow[]): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    const contexts = new Map<string, Awaited<ReturnType<ConfigCatalog['renderContext']>>>();
    for (const f of files) {
      let ctx = contexts.get(f.environmentId);
      if (!ctx) contexts.set(f.environmentId, (ctx = await this.catalog.renderContext(f.environmentId, true)));
      try {
        out.set(f.id, this.catalog.renderForSync(f, ctx));
      } catch (e) {
        throw Object.assign(e as object, { fileId: f.id });
      }
    }
    return out;
  }

  /** Per-target sync (or dry run); one failed server does not stop the others. */
  async syncEach(files: ConfigFileRow[], targets: SyncTarget[], dryRun: boolean): Promise<TargetResult[]> {
    const rendered = await this.renderAll(files);
    const redactions = dryRun && targets.length ? await this.catalog.secretValuesForRedaction(files[0].environmentId) : [];
    return Promise.all(targets.map(async (t): Promise<TargetResult> => {
      const content = rendered.get(t.configFileId)!;
      const file = files.find((f) => f.id === t.configFileId)!;
      const contentHash = this.sha256(content);
      try {
        const current = await this.hosts.readFile(t.serverId, t.hostPath);
        if (dryRun) {
          if (current && current.equals(content)) return { ...t, status: 'unchanged', diff: '', contentHash };
          const diff = file.kind === 'asset'
            ? `Binary files ${current ? `a${t.targetPath}` : '/dev/null'} and b${t.targetPath} differ\n`
            : redactedDiff(current?.toString('utf8') ?? '', content.toString('utf8'), t.targetPath, current === null, redactions);
          return { ...t, status: current ? 'would-change' : 'would-create', diff, contentHash };
        }
        if (current && current.equals(content)) {
          await this.recordSync(t, contentHash);
          return { ...t, status: 'unchanged', contentHash };
        }
        await this.hosts.writeFile(t.serverId, t.hostPath, content, { mode: t.mode });
        await this.recordSync(t, contentHash);
        return { ...t, status: 'written', contentHash };
      } catch (e) {
        this.logger.warn('config sync failed', { attachmentId: t.attachmentId, serverId: t.serverId, path: t.hostPath, error: describe(e) });
        return { ...t, status: 'failed', error: describe(e) };
      }
    }));
  }

  /**
   * All targets or none: each target's previous bytes (and mode) are read before it is written;
   * on the first failure every target already written is put back (or removed if it was new),
   * in reverse order. rollbackOnFailure false: best effort, every target is tried.
   */
  async batch(files: ConfigFileRow[], targets: SyncTarget[], rollbackOnFailure: boolean): Promise<BatchResult> {
    let rendered: Map<string, Buffer>;
    try {
      rendered = await this.renderAll(files);
    } catch (e) {
      return { status: 'failed', rolledBack: false, targets: targets.map((t) => ({ ...t, status: 'skipped' })), restored: [],
        failure: { step: 'render', configFileId: (e as { fileId?: string }).fileId ?? files[0].id, message: describe(e) } };
    }
    const results: TargetResult[] = targets.map((t) => ({ ...t, status: 'skipped' }));
    const written: Array<{ index: number; previous: Buffer | null; previousMode: number | null }> = [];
    let failure: BatchResult['failure'];
    for (let i = 0; i < targets.length; i++) {
      const t = targets[i];
      const content = rendered.get(t.configFileId)!;
      let step: SyncStep = 'read';
      try {
        const previous = await this.hosts.readFile(t.serverId, t.hostPath);
        const previousMode = previous ? await this.modeOf(t.serverId, t.hostPath) : null;
        if (previous && previous.equals(content)) {
          results[i] = { ...t, status: 'unchanged', contentHash: this.sha256(content) };
          await this.recordSync(t, this.sha256(content));
          continue;
        }
        step = 'write';
        await this.hosts.writeFile(t.serverId, t.hostPath, content, { mode: t.mode });
        written.push({ index: i, previous, previousMode });
        results[i] = { ...t, status: 'written', contentHash: this.sha256(content) };
      } catch (e) {
        results[i] = { ...t, status: 'failed', error: describe(e) };
        failure ??= { step, configFileId: t.configFileId, attachmentId: t.attachmentId, serverId: t.serverId, targetPath: t.targetPath, message: describe(e) };
        this.logger.warn('config batch step failed', { step, attachmentId: t.attachmentId, serverId: t.serverId, path: t.hostPath, error: describe(e) });
        if (rollbackOnFailure) break;
      }
    }
    const restored: BatchResult['restored'] = [];
    if (failure && rollbackOnFailure) {
      for (const w of [...written].reverse()) {
        const t = targets[w.index];
        const action = w.previous ? 'restored' : 'removed';
        try {
          if (w.previous) await this.hosts.writeFile(t.serverId, t.hostPath, w.previous, { mode: w.previousMode ?? t.mode });
          else await this.hosts.exec(t.serverId, ['rm', '-f', '--', t.hostPath]);
          results[w.index] = { ...t, status: action };
          restored.push({ attachmentId: t.attachmentId, serverId: t.serverId, targetPath: t.targetPath, action, ok: true });
        } catch (e) {
          restored.push({ attachmentId: t.attachmentId, serverId: t.serverId, targetPath: t.targetPath, action, ok: false, error: describe(e) });
        }
      }
    } else {
      for (const r of results) if (r.status === 'written') await this.recordSync(r, r.contentHash!);
    }
    return { status: failure ? 'failed' : 'succeeded', rolledBack: !!failure && rollbackOnFailure, targets: results, failure, restored };
  }

  private async modeOf(serverId: string, path: string): Promise<number | null> {
    const r = await this.hosts.exec(serverId, ['stat', '-c', '%a', '--', path], { check: false });
    const mode = parseInt(r.stdout.trim(), 8);
    return r.code === 0 && Number.isFinite(mode) ? mode : null;
  }

  /** Keyed hash of bytes, as sync states and the container spec record them. */
  contentHash(b: Buffer): string {
    return this.sha256(b);
  }

  private recordSync(t: SyncTarget, contentHash: string) {
    return this.attachments.recordSync({ attachmentId: t.attachmentId, serverId: t.serverId, contentHash, targetPath: t.targetPath });
  }
}
