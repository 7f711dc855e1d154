// One form renderer for every kind: a field per property of the API's JSON schema (its description
// as help), enums as selects, booleans as checkboxes, maps as key/value rows, lists as rows,
// nested objects as a group, a text field's `x-suggestions` offered as it is typed (a datalist).
// The value is checked with the same schema before it is sent, and the API's own error is shown
// next to the field it names. Fields a manifest owns are read-only and say which file owns them;
// write-only fields (secrets, passwords, tokens) are never filled in.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { humanize, validate, type FieldError, type Schema } from '../schema';

export interface Option { value: string; label: string }

export interface FormProps {
  schema: Schema;
  /** The object as the API reads it (edit), or nothing (create). */
  initial?: Record<string, any>;
  /** Fields the form leaves out (set by the page or by another route). */
  omit?: string[];
  /** Fields never shown filled in: the API takes them but never answers them. */
  writeOnly?: string[];
  /** Fields a manifest owns, with the file that owns them. */
  owned?: Record<string, string>;
  /** Choices for fields that name another object by id. */
  options?: Record<string, Option[]>;
  /** Shown with the fields (prefix of the inputs' ids). */
  name: string;
  submitLabel: string;
  /** An edit replaces the whole object (PUT): every field is sent, not only the changed ones. */
  replace?: boolean;
  /** Gets the body: every field on create or replace, only the changed ones on edit. */
  onSubmit(body: Record<string, unknown>): Promise<unknown>;
  onCancel?(): void;
  children?: ComponentChildren;
}

const isEmpty = (v: unknown) => v === undefined || v === '';
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Whether a field holds a secret: the schema says so (`writeOnly`, `format: password`). */
export const isSecret = (s: Schema) => s.writeOnly === true || s.format === 'password';

export function SchemaForm(props: FormProps) {
  const { schema, initial, omit = [], owned = {}, options = {}, name } = props;
  const editing = !!initial;
  const fields = Object.entries(schema.properties ?? {}).filter(([k, s]) => !omit.includes(k) && !s.readOnly);
  // the fields the page names write-only (taken, never read back) and those whose schema says so
  const writeOnly = [...(props.writeOnly ?? []), ...fields.filter(([, s]) => isSecret(s)).map(([k]) => k)];
  const [value, setValue] = useState<Record<string, unknown>>(() => {
    const v: Record<string, unknown> = {};
    for (const [k, s] of fields) v[k] = writeOnly.includes(k) ? undefined : initial ? initial[k] : s.default;
    return v;
  });
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);

  const body = () => {
    const out: Record<string, unknown> = {};
    for (const [k] of fields) {
      const v = value[k];
      if (owned[k]) continue;
      if (writeOnly.includes(k)) { if (!isEmpty(v) && v !== null) out[k] = v; continue; }
      if (editing && !props.replace) { if (!same(v, initial![k])) out[k] = v === undefined ? null : v; } else if (v !== undefined && !(v === null && !schema.required?.includes(k))) out[k] = v;
    }
    return out;
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    const b = body();
    if (editing && !props.replace && !Object.keys(b).length) { setErrors([{ path: '', message: 'Nothing changed.' }]); return; }
    // an edit sends only what changed: the fields a create requires are already stored
    const found = validate({ ...schema, minProperties: undefined, ...(editing && !props.replace && { required: [] }) }, b);
    setErrors(found);
    if (found.length) return;
    setBusy(true);
    try {
      await props.onSubmit(b);
      setSaved(true);
    } catch (err) {
      const field = err instanceof ApiError && err.field ? err.field : '';
      setErrors([{ path: field, message: (err as Error).message }]);
    } finally {
      setBusy(false);
    }
  };

  const shown = new Set(fields.map(([k]) => k));
  const general = errors.filter((e) => !shown.has(e.path.split('.')[0]));
  return (
    <form class="schema-form" onSubmit={submit} noValidate aria-label={name} data-form={name}>
      {fields.map(([k, s]) => (
        <Field key={k} path={k} label={humanize(k)} schema={s} value={value[k]} required={schema.required?.includes(k) ?? false}
          onChange={(v) => setValue((old) => ({ ...old, [k]: v }))} errors={errors} idPrefix={name} options={options}
          owner={owned[k]} writeOnly={writeOnly.includes(k) ? (editing ? 'keep' : 'new') : undefined} />
      ))}
      {props.children}
      {general.map((e) => <p role="alert" class="error">{e.message}</p>)}
      {saved && <p role="status">Saved.</p>}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{props.submitLabel}</button>
        {props.onCancel && <button type="button" onClick={props.onCancel}>Cancel</button>}
      </div>
    </form>
  );
}

interface FieldProps {
  path: string;
  label: string;
  schema: Schema;
  value: unknown;
  required: boolean;
  onChange(v: unknown): void;
  errors: FieldError[];
  idPrefix: string;
  options: Record<string, Option[]>;
  owner?: string;
  writeOnly?: 'keep' | 'new';
}

const idOf = (prefix: string, path: string) => `${prefix}-${path}`.replace(/[^A-Za-z0-9_-]/g, '-');

/** The text typed into an input, as the schema's value: '' is null when the field may be null, else absent. */
function fromText(schema: Schema, text: string): unknown {
  if (text === '') return schema.nullable ? null : undefined;
  if (schema.type === 'integer' || schema.type === 'number') return Number(text);
  return text;
}

function Field(p: FieldProps) {
  const { schema, path, label, value, owner } = p;
  const id = idOf(p.idPrefix, path);
  const mine = p.errors.filter((e) => e.path === path || (e.path.startsWith(`${path}.`) && !isComposite(schema)));
  const help = [
    schema.description,
    owner && `Set by the manifest ${owner}: edit that file to change it.`,
    p.writeOnly === 'keep' && !/write-only/i.test(schema.description ?? '') && 'Write-only: never shown. Leave empty to keep the stored value; type a new one to replace it.',
    p.writeOnly === 'new' && 'Write-only: stored sealed and never shown again.',
  ].filter(Boolean) as string[];
  const describedBy = [help.length && `${id}-help`, mine.length && `${id}-err`].filter(Boolean).join(' ') || undefined;
  const note = (
    <>
      {help.length > 0 && <p class="help" id={`${id}-help`}>{help.map((h) => (/[.)]$/.test(h) ? h : `${h}.`)).join(' ')}</p>}
      {mine.length > 0 && <p class="error" role="alert" id={`${id}-err`} data-field-error={path}>{mine.map((e) => e.message).join('; ')}</p>}
    </>
  );
  const common = { id, disabled: !!owner, 'aria-describedby': describedBy, 'aria-invalid': mine.length ? true : undefined, 'data-owner': owner };
  const text = <>{label}{p.required && schema.type !== 'boolean' && <span aria-hidden="true"> *</span>}{owner && <span class="owned"> (manifest)</span>}</>;
  const choices = p.options[path];

  if (schema.type === 'boolean') {
    return (
      <div class="field check">
        <input type="checkbox" {...common} checked={value === true} onChange={(e) => p.onChange((e.target as HTMLInputElement).checked)} />
        <label for={id}>{text}</label>
        {note}
      </div>
    );
  }
  if (schema.type !== 'array' && (choices || schema.enum)) {
    const list: Option[] = choices ?? schema.enum!.filter((v) => v !== null).map((v) => ({ value: String(v), label: String(v) }));
    return (
      <div class="field">
        <label for={id}>{text}</label>
        <select {...common} value={value == null ? '' : String(value)} onChange={(e) => p.onChange(fromText(schema, (e.target as HTMLSelectElement).value))}>
          {(!p.required || value == null) && <option value="">{p.required ? 'Choose…' : '(none)'}</option>}
          {list.map((o) => <option value={o.value}>{o.label}</option>)}
        </select>
        {note}
      </div>
    );
  }
  if (schema.type === 'array') {
    const items = schema.items ?? {};
    if (items.enum || choices) {
      // a set of known values (event types) or of other objects (environments): one checkbox each
      const known: Option[] = choices ?? items.enum!.map((v) => ({ value: String(v), label: String(v) }));
      const chosen = new Set(((value as unknown[] | undefined) ?? []).map(String));
      return (
        <fieldset class="field" aria-describedby={describedBy} disabled={!!owner}>
          <legend>{text}</legend>
          <div class="checks">
            {known.map((o) => (
              <label class="check"><input type="checkbox" checked={chosen.has(o.value)} onChange={(e) => {
                const next = new Set(chosen);
                if ((e.target as HTMLInputElement).checked) next.add(o.value); else next.delete(o.value);
                const list = known.filter((x) => next.has(x.value)).map((x) => x.value);
                // none chosen: null where the field may be null, left out where it needs one or more
                p.onChange(list.length ? list : p.schema.nullable ? null : p.schema.minItems ? undefined : list);
              }} /> {o.label}</label>
            ))}
          </div>
          {note}
        </fieldset>
      );
    }
    return <ListField {...p} id={id} text={text} note={note} describedBy={describedBy} />;
  }
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object' && !schema.properties) {
    return <MapField {...p} id={id} text={text} note={note} describedBy={describedBy} />;
  }
  if (schema.type === 'object' && schema.properties) {
    const obj = value as Record<string, unknown> | null | undefined;
    const on = obj != null;
    return (
      <fieldset class="field group" aria-describedby={describedBy} disabled={!!owner}>
        <legend>{text}</legend>
        {schema.nullable && (
          <label class="check"><input type="checkbox" checked={on} onChange={(e) => p.onChange((e.target as HTMLInputElement).checked ? {} : null)} /> Set {label.toLowerCase()}</label>
        )}
        {(on || !schema.nullable) && Object.entries(schema.properties).map(([k, s]) => (
          <Field key={k} {...p} path={`${path}.${k}`} label={humanize(k)} schema={s} value={obj?.[k]} owner={undefined} writeOnly={undefined}
            required={schema.required?.includes(k) ?? false}
            onChange={(v) => p.onChange(cleanObject({ ...(obj ?? {}), [k]: v }))} />
        ))}
        {note}
      </fieldset>
    );
  }
  if (schema.type === 'object') {
    return (
      <div class="field">
        <label for={id}>{text}</label>
        <textarea {...common} rows={3} value={value == null ? '' : JSON.stringify(value)} onInput={(e) => {
          const t = (e.target as HTMLTextAreaElement).value;
          try { p.onChange(t ? JSON.parse(t) : null); } catch { /* checked on submit */ }
        }} />
        {note}
      </div>
    );
  }
  if (schema.oneOf && !schema.type) {
    // one of a few words or an object (an ingress's tls: auto, off or {"secretRef": "NAME"}): the
    // words offered as it is typed, an object typed as JSON
    const words = schema.oneOf.flatMap((o) => (o.enum ?? []).map(String));
    const shown = value == null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    return (
      <div class="field">
        <label for={id}>{text}</label>
        <input {...common} type="text" autoComplete="off" list={`${id}-suggestions`} value={shown}
          placeholder={schema.default !== undefined ? `default ${String(schema.default)}` : undefined}
          onInput={(e) => {
            const t = (e.target as HTMLInputElement).value.trim();
            if (!t.startsWith('{')) { p.onChange(t === '' ? undefined : t); return; }
            try { p.onChange(JSON.parse(t)); } catch { /* checked on submit */ }
          }} />
        <datalist id={`${id}-suggestions`}>{[...words, '{"secretRef": ""}'].map((v) => <option value={v} />)}</datalist>
        {note}
      </div>
    );
  }
  const number = schema.type === 'integer' || schema.type === 'number';
  const secret = !!p.writeOnly || isSecret(schema);
  // a secret is a password input; only one that may span lines (a key, a secret's value: more than
  // 8 KB allowed) is a text area, its characters masked
  const long = (schema.maxLength ?? 0) > (secret ? 8192 : 4096);
  const shownValue = value == null ? '' : String(value);
  // a text field with known values that also takes others (a restart policy's on-failure:N)
  const suggestions = !long && !secret ? schema['x-suggestions'] : undefined;
  return (
    <div class="field">
      <label for={id}>{text}</label>
      {long ? (
        <textarea {...common} rows={secret ? 4 : 8} spellcheck={false} class={secret ? 'secret' : undefined} autoComplete={secret ? 'off' : undefined}
          data-secret={secret || undefined} value={shownValue} onInput={(e) => p.onChange(fromText(schema, (e.target as HTMLTextAreaElement).value))} />
      ) : (
        <input {...common} type={(secret ? 'password' : number ? 'number' : 'text') as 'text'} autoComplete={secret ? 'new-password' : 'off'}
          list={suggestions ? `${id}-suggestions` : undefined}
          step={schema.type === 'integer' ? 1 : number ? 'any' : undefined} min={schema.minimum} max={schema.maximum}
          placeholder={schema.default !== undefined && !Array.isArray(schema.default) && typeof schema.default !== 'object' ? `default ${schema.default}` : undefined}
          value={shownValue} onInput={(e) => p.onChange(fromText(schema, (e.target as HTMLInputElement).value))} />
      )}
      {suggestions && <datalist id={`${id}-suggestions`}>{suggestions.map((v) => <option value={v} />)}</datalist>}
      {note}
    </div>
  );
}

const isComposite = (s: Schema) => s.type === 'object' && !!s.properties;

/** A nested object with its empty fields taken out. */
function cleanObject(o: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

interface RowsProps extends FieldProps { id: string; text: ComponentChildren; note: ComponentChildren; describedBy?: string }

/** A list as rows: one input per item, add and remove. */
function ListField(p: RowsProps) {
  const items = (p.value as unknown[] | null | undefined) ?? [];
  const itemSchema = p.schema.items ?? { type: 'string' };
  const set = (next: unknown[]) => p.onChange(next.length || !p.schema.nullable ? next : null);
  const simple = !isComposite(itemSchema);
  return (
    <fieldset class="field rows" aria-describedby={p.describedBy} disabled={!!p.owner} data-owner={p.owner}>
      <legend>{p.text}</legend>
      {items.map((item, i) => (
        <div class="row">
          {simple ? (
            <input aria-label={`${p.label} ${i + 1}`} value={item == null ? '' : String(item)}
              onInput={(e) => { const next = [...items]; next[i] = fromText(itemSchema, (e.target as HTMLInputElement).value) ?? ''; set(next); }} />
          ) : (
            <Field {...p} path={`${p.path}.${i}`} label={`${p.label} ${i + 1}`} schema={itemSchema} value={item} required
              onChange={(v) => { const next = [...items]; next[i] = v; set(next); }} />
          )}
          <button type="button" class="link" onClick={() => set(items.filter((_, j) => j !== i))}>Remove<span class="sr-only"> {p.label} {i + 1}</span></button>
        </div>
      ))}
      <button type="button" onClick={() => set([...items, simple ? '' : {}])}>Add<span class="sr-only"> to {p.label}</span></button>
      {p.note}
    </fieldset>
  );
}

/**
 * A map of names to values (env, headers) as key/value rows. A map whose stored values are
 * sealed (a webhook's headers read as {name: {set: true}}) shows its names with empty value
 * inputs: a typed value replaces the stored one, a removed row sends null, the rest is kept.
 */
function MapField(p: RowsProps) {
  const obj = (p.value as Record<string, unknown> | null | undefined) ?? {};
  const [stored] = useState(() => obj);
  const sealed = Object.values(stored).some((v) => v !== null && typeof v === 'object');
  // rows keep their order and may have an empty or repeated key while being typed
  const [rows, setRows] = useState<Array<[string, string]>>(() => Object.entries(obj).map(([k, v]) => [k, typeof v === 'string' ? v : '']));
  const update = (next: Array<[string, string]>) => {
    setRows(next);
    if (!sealed) { p.onChange(Object.fromEntries(next.filter(([k]) => k !== ''))); return; }
    const changes: Record<string, string | null> = {};
    for (const [k, v] of next) if (k !== '' && (v !== '' || !(k in stored))) changes[k] = v;
    for (const k of Object.keys(stored)) if (!next.some(([name]) => name === k)) changes[k] = null;
    p.onChange(Object.keys(changes).length ? changes : stored);
  };
  return (
    <fieldset class="field rows" aria-describedby={p.describedBy} disabled={!!p.owner} data-owner={p.owner}>
      <legend>{p.text}</legend>
      {sealed && <p class="help">Values are write-only: a stored one is never shown; type a value to replace it.</p>}
      {rows.map(([k, v], i) => (
        <div class="row kv" data-row={k}>
          <input aria-label={`${p.label} name ${i + 1}`} value={k} spellcheck={false}
            onInput={(e) => update(rows.map((r, j) => (j === i ? [(e.target as HTMLInputElement).value, r[1]] : r)))} />
          <input aria-label={`${p.label} value ${i + 1}`} value={v} spellcheck={false} type={(sealed ? 'password' : 'text') as 'text'}
            placeholder={sealed && k in stored ? 'set (never shown)' : undefined} autoComplete={sealed ? 'new-password' : undefined}
            onInput={(e) => update(rows.map((r, j) => (j === i ? [r[0], (e.target as HTMLInputElement).value] : r)))} />
          <button type="button" class="link" onClick={() => update(rows.filter((_, j) => j !== i))}>Remove<span class="sr-only"> {p.label} {k || i + 1}</span></button>
        </div>
      ))}
      <button type="button" onClick={() => update([...rows, ['', '']])}>Add<span class="sr-only"> to {p.label}</span></button>
      {p.note}
    </fieldset>
  );
}
