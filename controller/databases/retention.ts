
/** What retention reads of a backup (a database's or a volume's). */
export interface RotatedBackup { id: string; status: string; pinned: boolean; startedAt: Date }

export interface Retention { keepLast: number | null; keepDays: number | null }

const DAY_MS = 86_400_000;

/**
 * Which backups rotation deletes (newest-first input). Pinned backups and running ones are never
 * touched. Succeeded and failed backups are ranked separately (a run of failures never pushes a
 * good backup out): each is deleted when it is past the newest `keepLast` of its kind or older
 * than `keepDays`. Database and volume backups rotate through here. The newest succeeded backup always stays, however old.
 */
export function rotationPlan<B extends RotatedBackup>(backups: B[], r: Retention, now = new Date()): B[] {
  if (r.keepLast == null && r.keepDays == null) return [];
  const doomed: B[] = [];
  for (const status of ['succeeded', 'failed'] as const) {
    const ranked = backups.filter((b) => b.status === status && !b.pinned);
    ranked.forEach((b, i) => {
      if (status === 'succeeded' && b.id === backups.find((x) => x.status === 'succeeded')?.id) return;
      const tooMany = r.keepLast != null && i >= r.keepLast;
      const tooOld = r.keepDays != null && now.getTime() - new Date(b.startedAt).getTime() > r.keepDays * DAY_MS;
      if (tooMany || tooOld) doomed.push(b);
    });
  }
  return doomed;
}
