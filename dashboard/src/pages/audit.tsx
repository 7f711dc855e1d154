// The audit log of the environment, newest first, filtered like the API (resource type, id, action).
import { useState } from 'preact/hooks';
import { get } from '../api';
import { useLoad } from '../hooks';
import { ErrorNote, when } from '../components/status';
import { KeyValues } from '../components/values';

const PAGE = 50;

export function AuditPage({ params }: { params: Record<string, string> }) {
  const [filters, setFilters] = useState({ resourceType: '', resourceId: '', action: '' });
  const [offset, setOffset] = useState(0);
  const page = useLoad((signal) => {
    const q = new URLSearchParams({ environmentId: params.envId, limit: String(PAGE), offset: String(offset) });
    for (const [k, v] of Object.entries(filters)) if (v.trim()) q.set(k, v.trim());
    return get(`/api/audit-logs?${q}`, signal);
  }, [params.envId, filters, offset]);
  return (
    <div>
      <form class="inline" onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.target as HTMLFormElement);
        setOffset(0);
        setFilters({ resourceType: String(f.get('resourceType')), resourceId: String(f.get('resourceId')), action: String(f.get('action')) });
      }}>
        <label>Resource type <input name="resourceType" placeholder="services" /></label>
        <label>Resource id <input name="resourceId" /></label>
        <label>Action <input name="action" placeholder="deploy" /></label>
        <button type="submit">Filter</button>
      </form>
      <ErrorNote error={page.error} />
      {page.data && (
        <>
          <p class="reason" role="status">{page.data.total} entries</p>
          <table>
            <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Resource</th><th scope="col">Details</th></tr></thead>
            <tbody>
              {page.data.items.map((a: any) => (
                <tr>
                  <td>{when(a.createdAt)}</td><td>{a.actorName ?? a.actorType}</td><td><code>{a.action}</code></td>
                  <td>{a.resourceType} <code class="id">{a.resourceId}</code></td><td><KeyValues value={a.details} /></td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="actions">
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>Newer</button>
            <button type="button" disabled={offset + PAGE >= page.data.total} onClick={() => setOffset(offset + PAGE)}>Older</button>
          </div>
        </>
      )}
    </div>
  );
}
