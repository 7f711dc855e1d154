/** The controller's log is one JSON object per line; these read it the way a log shipper would. */
export function logRecords(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line still being written
    }
  }
  return out;
}

/** The URL a `stevedore serve` logged it listens on, once it has. */
export function listeningUrl(text: string): string | undefined {
  const r = logRecords(text).find((l) => l.msg === 'stevedore listening');
  return typeof r?.url === 'string' ? r.url : undefined;
}
