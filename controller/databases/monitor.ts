// Database monitoring: every collectionIntervalSec a monitored database is probed — does it
// answer (the type's check in its container, or a TCP connect to host:port) and how large is it
// (the type's size command). Only what was observed is recorded: a size that could not be read
// is null with the reason, never the previous figure.
import type { DatabaseRow } from '../store/repositories/databases.js';
import { credentialsOf, reasonOf, typeCommand, type DatabaseContext } from './context.js';
import type { MonitoringResult } from './monitoring-result.js';

type Reachability = { ok: boolean; message: string; durationMs: number };

/** Probes one database and records the result in its status (monitoring and the Reachable condition). */
export async function monitorDatabase(ctx: DatabaseContext, db: DatabaseRow, reach: (db: DatabaseRow) => Promise<Reachability>): Promise<MonitoringResult> {
  const r = await reach(db);
  const size = r.ok ? await sizeOf(ctx, db) : { bytes: null, message: 'not measured: the database did not answer' };
  const result: MonitoringResult = {
    reachable: r.ok, message: r.message, latencyMs: r.durationMs, sizeBytes: size.bytes, sizeMessage: size.message, checkedAt: new Date().toISOString(),
  };
  // the condition first: a reader that sees this probe's result sees its condition too
  const was = (db.status?.conditions as Array<{ type: string; status: boolean }> | undefined)?.find((c) => c.type === 'Reachable');
  if (was?.status !== r.ok) {
    await ctx.databases.setCondition(db.id, r.ok
      ? { type: 'Reachable', status: true, reason: 'Answered', message: r.message }
      : { type: 'Reachable', status: false, reason: 'Unreachable', message: r.message });
  }
  await ctx.databases.setMonitoring(db.id, result as unknown as Record<string, unknown>);
  await ctx.onProbed?.(db, result);
  return result;
}

async function sizeOf(ctx: DatabaseContext, db: DatabaseRow): Promise<{ bytes: number | null; message: string | null }> {
  if (!db.serverId || !db.containerName) return { bytes: null, message: 'not measured: only databases in a container are sized' };
  const type = await ctx.databaseTypes.findByName(db.type);
  if (!type?.commands.some((c) => c.name === 'size')) return { bytes: null, message: `database type '${db.type}' has no 'size' command` };
  const argv = await typeCommand(ctx, db.type, 'size', { container: db.containerName, database: db.databaseName, creds: credentialsOf(ctx, db) });
  try {
    const out = await ctx.hosts.exec(db.serverId, argv, { check: false, timeoutMs: 30_000 });
    const text = out.stdout.trim();
    if (out.code !== 0) return { bytes: null, message: reasonOf(out.stderr, `the size command exited ${out.code}`) };
    if (!/^\d+$/.test(text)) return { bytes: null, message: `the size command printed no byte count: ${text.slice(0, 200)}` };
    return { bytes: Number(text), message: null };
  } catch (err) {
    return { bytes: null, message: (err as Error).message };
  }
}
