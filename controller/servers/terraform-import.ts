// Hosts out of `terraform output -json`. Accepted shapes (documented in the route summary):
//   - the whole document {<output>: {value, type, sensitive}, ...}: every output whose value is a
//     host list or map is used, or only `outputName` when given;
//   - a bare value (`terraform output -json <name>`);
// where a value is either a list of objects {name, host|ip|hostname|address|ipv4_address|
// public_ip|private_ip, port|ssh_port?, user|ssh_user?, tags?} or a map name -> address or
// name -> object of that shape. Pure: no database, so the unit tests pin every shape.
import { validationError } from '../errors/app-error.js';
import { HOSTNAME_RE, SERVER_NAME_RE, SSH_USER_RE } from './validation.js';

export interface ImportedHost {
  name: string;
  hostname: string;
  sshPort?: number;
  sshUser?: string;
  tags?: string[];
}

const ADDRESS_KEYS = ['host', 'ip', 'hostname', 'address', 'ipv4_address', 'public_ip', 'private_ip', 'ip_address'];
const PORT_KEYS = ['port', 'ssh_port', 'sshPort'];
const USER_KEYS = ['user', 'ssh_user', 'sshUser'];

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const firstOf = (o: Record<string, unknown>, keys: string[]) => keys.map((k) => o[k]).find((v) => v !== undefined && v !== null && v !== '');

function hostFrom(entry: unknown, fallbackName: string | undefined, at: string): ImportedHost {
  if (typeof entry === 'string') {
    if (!fallbackName) throw validationError(`${at}: a bare address needs a name (use a map name -> address)`, at);
    return checked({ name: fallbackName, hostname: entry }, at);
  }
  if (!isObject(entry)) throw validationError(`${at}: expected an object or an address string`, at);
  const address = firstOf(entry, ADDRESS_KEYS);
  if (typeof address !== 'string') throw validationError(`${at}: no address (one of ${ADDRESS_KEYS.join(', ')})`, at);
  const name = typeof entry.name === 'string' ? entry.name : fallbackName ?? address;
  const port = firstOf(entry, PORT_KEYS);
  const user = firstOf(entry, USER_KEYS);
  const host: ImportedHost = { name, hostname: address };
  if (port !== undefined) {
    const n = typeof port === 'string' ? Number(port) : port;
    if (!Number.isInteger(n) || (n as number) < 1 || (n as number) > 65535) throw validationError(`${at}.port: must be a port number`, `${at}.port`);
    host.sshPort = n as number;
  }
  if (user !== undefined) {
    if (typeof user !== 'string' || !SSH_USER_RE.test(user)) throw validationError(`${at}.user: not a valid user name`, `${at}.user`);
    host.sshUser = user;
  }
  if (Array.isArray(entry.tags) && entry.tags.every((t) => typeof t === 'string')) host.tags = entry.tags as string[];
  return checked(host, at);
}

function checked(h: ImportedHost, at: string): ImportedHost {
  if (!SERVER_NAME_RE.test(h.name) || h.name.length > 100) throw validationError(`${at}: '${h.name.slice(0, 100)}' is not a valid server name`, `${at}.name`);
  if (!HOSTNAME_RE.test(h.hostname) || h.hostname.length > 253) throw validationError(`${at}: not a valid hostname or IP address`, `${at}.host`);
  return h;
}

function isHostValue(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0 && v.every(isObject);
  if (isObject(v)) {
    const vals = Object.values(v);
    return vals.length > 0 && vals.every((x) => typeof x === 'string' || (isObject(x) && firstOf(x, ADDRESS_KEYS) !== undefined));
  }
  return false;
}

function hostsOfValue(value: unknown, at: string): ImportedHost[] {
  if (Array.isArray(value)) return value.map((e, i) => hostFrom(e, undefined, `${at}[${i}]`));
  if (isObject(value)) return Object.entries(value).map(([k, e]) => hostFrom(e, k, `${at}.${k}`));
  throw validationError(`${at}: expected a list of hosts or a map name -> address`, at);
}

const isOutputDocument = (doc: Record<string, unknown>) =>
  Object.values(doc).length > 0 && Object.values(doc).every((o) => isObject(o) && 'value' in o);

export function hostsFromTerraformOutput(doc: unknown, outputName?: string): ImportedHost[] {
  let hosts: ImportedHost[];
  if (isObject(doc) && isOutputDocument(doc)) {
    if (outputName) {
      const out = doc[outputName];
      if (!isObject(out)) throw validationError(`output '${outputName}' is not in the document`, 'outputName');
      hosts = hostsOfValue(out.value, outputName);
    } else {
      const usable = Object.entries(doc).filter(([, o]) => isHostValue((o as { value: unknown }).value));
      if (!usable.length) throw validationError('no output holds a list of hosts or a map name -> address', 'output');
      hosts = usable.flatMap(([k, o]) => hostsOfValue((o as { value: unknown }).value, k));
    }
  } else {
    hosts = hostsOfValue(doc, 'output');
  }
  const seen = new Set<string>();
  for (const h of hosts) {
    if (seen.has(h.name)) throw validationError(`the server name '${h.name}' appears twice in the output`, 'output');
    seen.add(h.name);
  }
  return hosts;
}
