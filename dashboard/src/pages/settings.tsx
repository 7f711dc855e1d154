// Settings modules as forms. The fields, their types, enums and limits come from the API's own
// OpenAPI document (the schema the PATCH is validated with), so a form checks what the API would
// and a new module or field shows up here without a change.
import { useState } from 'preact/hooks';
import { get, patch } from '../api';
import { useAction, useLoad } from '../hooks';
import { ErrorNote } from '../components/status';

interface FieldSchema { type?: string; enum?: string[]; minimum?: number; maximum?: number; minLength?: number; maxLength?: number; pattern?: string; items?: FieldSchema; description?: string }
interface Module { name: string; fields: Record<string, FieldSchema> }

async function loadModules(signal: AbortSignal): Promise<Module[]> {
  const doc = await get('/api/openapi.json', signal);
  const op = doc.paths['/api/environments/{envId}/settings/{module}'].get;
  const names = /\(([^)]+)\)/.exec(op.summary)![1].split(',').map((n: string) => n.trim());
  const schemas = op.responses['200'].content['application/json'].schema.oneOf as Array<{ properties: Record<string, FieldSchema> }>;
  return names.map((name, i) => ({ name, fields: schemas[i].properties }));
}

export function SettingsPage({ params }: { params: Record<string, string> }) {
  const modules = useLoad(loadModules, []);
  if (modules.error) return <ErrorNote error={modules.error} />;
  if (!modules.data) return <p role="status">Loading…</p>;
  return <>{modules.data.map((m) => <ModuleForm key={`${params.envId}/${m.name}`} envId={params.envId} module={m} />)}</>;
}

function ModuleForm({ envId, module }: { envId: string; module: Module }) {
  const values = useLoad((signal) => get(`/api/environments/${envId}/settings/${module.name}`, signal), [envId, module.name]);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const id = (f: string) => `set-${module.name}-${f}`;
  if (!values.data) return <ErrorNote error={values.error} />;
  const submit = (e: Event) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const changed: Record<string, unknown> = {};
    for (const [field, schema] of Object.entries(module.fields)) {
      const input = form.elements.namedItem(field) as HTMLInputElement | null;
      if (!input) continue;
      const v = readValue(input, schema);
      if (JSON.stringify(v) !== JSON.stringify(values.data[field])) changed[field] = v;
    }
    setSaved(false);
    if (!Object.keys(changed).length) return;
    action.run(async () => { await patch(`/api/environments/${envId}/settings/${module.name}`, changed); setSaved(true); values.reload(); });
  };
  return (
    <form class="settings" onSubmit={submit} aria-labelledby={`mod-${module.name}`}>
      <h2 id={`mod-${module.name}`}>{module.name}</h2>
      {Object.entries(module.fields).map(([field, schema]) => <Field id={id(field)} name={field} schema={schema} value={values.data[field]} />)}
      <ErrorNote error={action.error} />
      {saved && <p role="status">Saved.</p>}
      <button type="submit" disabled={action.busy}>Save {module.name}</button>
    </form>
  );
}

function Field({ id, name, schema, value }: { id: string; name: string; schema: FieldSchema; value: unknown }) {
  const label = <label for={id}>{name}</label>;
  if (schema.type === 'boolean') return <div class="field check"><input id={id} name={name} type="checkbox" checked={value === true} />{label}</div>;
  if (schema.enum) return <div class="field">{label}<select id={id} name={name} value={String(value)}>{schema.enum.map((o) => <option value={o}>{o}</option>)}</select></div>;
  if (schema.type === 'integer' || schema.type === 'number') {
    return <div class="field">{label}<input id={id} name={name} type="number" step={schema.type === 'integer' ? 1 : 'any'} min={schema.minimum} max={schema.maximum} value={value as number} /></div>;
  }
  if (schema.type === 'array' || schema.type === 'object') {
    return <div class="field">{label}<textarea id={id} name={name} data-json="true" rows={3}>{JSON.stringify(value)}</textarea></div>;
  }
  return <div class="field">{label}<input id={id} name={name} minLength={schema.minLength} maxLength={schema.maxLength} pattern={schema.pattern} value={(value as string) ?? ''} /></div>;
}

function readValue(input: HTMLInputElement, schema: FieldSchema): unknown {
  if (schema.type === 'boolean') return input.checked;
  if (schema.type === 'integer' || schema.type === 'number') return input.value === '' ? null : Number(input.value);
  if (input.dataset.json) return JSON.parse(input.value);
  return input.value;
}
