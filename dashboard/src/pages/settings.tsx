// Settings modules as forms. The fields, their types, enums, limits and descriptions come from the
// API's own OpenAPI document (the schema the PATCH is validated with), drawn by the same form
// renderer as every kind, so a form checks what the API would and a new module or field shows up
// here without a change. Settings a manifest sets are read-only and name its file.
import { useState } from 'preact/hooks';
import { get, patch } from '../api';
import { useLoad } from '../hooks';
import { operations, type Schema } from '../schema';
import { SchemaForm } from '../components/schema-form';
import { ErrorNote } from '../components/status';

interface Module { name: string; schema: Schema }

async function loadModules(signal: AbortSignal): Promise<Module[]> {
  const op = (await operations(signal)).get('getEnvironmentSettings')!;
  const names = /\(([^)]+)\)/.exec(op.summary ?? '')![1].split(',').map((n: string) => n.trim());
  return names.map((name, i) => ({ name, schema: op.response!.oneOf![i] }));
}

export function SettingsPage({ params }: { params: Record<string, string> }) {
  const { envId } = params;
  const data = useLoad(async (signal) => {
    const [modules, env] = await Promise.all([loadModules(signal), get(`/api/environments/${envId}`, signal)]);
    return { modules, env };
  }, [envId]);
  if (data.error) return <ErrorNote error={data.error} />;
  if (!data.data) return <p role="status">Loading…</p>;
  const { modules, env } = data.data;
  return <>{modules.map((m) => <ModuleForm key={`${envId}/${m.name}`} envId={envId} module={m} source={env.source} />)}</>;
}

function ModuleForm({ envId, module, source }: { envId: string; module: Module; source: any }) {
  const values = useLoad((signal) => get(`/api/environments/${envId}/settings/${module.name}`, signal), [envId, module.name]);
  const [saved, setSaved] = useState(false);
  if (!values.data) return <ErrorNote error={values.error} />;
  // a manifest of the environment owns the settings it sets: settings.<module>.<field>
  const owned: Record<string, string> = {};
  if (source?.kind === 'manifest') {
    for (const f of source.fields ?? []) {
      const [head, mod, field] = String(f).split('.');
      if (head === 'settings' && mod === module.name && field) owned[field] = source.path;
    }
  }
  return (
    <section class="panel settings" aria-labelledby={`mod-${module.name}`}>
      <h2 id={`mod-${module.name}`}>{module.name}</h2>
      <SchemaForm key={JSON.stringify(values.data)} name={`settings-${module.name}`} schema={module.schema} initial={values.data} owned={owned}
        submitLabel={`Save ${module.name}`} onSubmit={async (body) => {
          setSaved(false);
          await patch(`/api/environments/${envId}/settings/${module.name}`, body);
          setSaved(true);
          values.reload(); // the form is drawn again from what the API now holds
        }} />
      {saved && <p role="status">Saved {module.name}.</p>}
    </section>
  );
}
