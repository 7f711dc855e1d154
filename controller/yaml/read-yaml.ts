// The one way the controller reads YAML it was sent or found (manifests, compose templates,
// compose files on servers). The `yaml` library parses; this module sets the limits and turns
// every refusal into an answer that names the file or field:
//
// - aliases: at most YAML_LIMITS.maxAliasCount expansions per document (an alias bomb or a
//   merge-key bomb is refused, not expanded: the library throws a ReferenceError past the count);
// - nesting deeper than the parser's stack: a syntax error of the document, like any other;
// - documents: at most YAML_LIMITS.maxDocuments per request or watched folder (200,000 empty
//   documents take ~2 s of parsing on their own);
// - time: documents are parsed one at a time and, through `pace`, the event loop gets a turn
//   every YAML_LIMITS.sliceMs (2 ms), so a 1 MB folder never holds up other requests (paced.ts).
import { Composer, LineCounter, Parser, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';
import { validationError } from '../errors/app-error.js';

export const YAML_LIMITS = {
  /** Alias expansions per document; the library's default (100) scaled to the document size. */
  maxAliasCount: 100,
  /** Documents per request (all its files) or per watched folder. */
  maxDocuments: 10_000,
  /** Longest stretch of parsing before other work gets a turn. */
  sliceMs: 2,
} as const;

type Options = ParseOptions & DocumentOptions & SchemaOptions;

/** Why a text was not read at all (a limit); the caller names the file or field. */
export class YamlRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlRefused';
  }
}

/** A document's value, its aliases expanded within the limit (YamlRefused past it). */
export function valueOf(doc: Document): unknown {
  try {
    return doc.toJS({ maxAliasCount: YAML_LIMITS.maxAliasCount });
  } catch (e) {
    if (e instanceof ReferenceError || e instanceof RangeError) {
      throw new YamlRefused(`too many alias expansions (at most ${YAML_LIMITS.maxAliasCount} per document: an alias or merge-key bomb is not expanded)`);
    }
    throw e;
  }
}

/** Counts documents against the cap across the files of one request or folder. */
export class DocumentBudget {
  used = 0;
  constructor(readonly max: number = YAML_LIMITS.maxDocuments) {}
  take(count = 1): void {
    this.used += count;
    if (this.used > this.max) throw new YamlRefused(`more than ${this.max} YAML documents in one request or folder`);
  }
}

/**
 * The documents of a text, one at a time (a generator, so a caller can pace itself between them),
 * each counted against `budget`. Syntax errors stay on each document (`doc.errors`).
 */
export function* documentsOf(text: string, options: Options & { lineCounter?: LineCounter; budget?: DocumentBudget } = {}): Generator<Document.Parsed> {
  const { lineCounter, budget, ...opts } = options;
  const composer = new Composer(opts);
  const parser = new Parser(lineCounter?.addNewLine);
  for (const token of parser.parse(text)) {
    for (const doc of composer.next(token)) {
      budget?.take();
      yield doc;
    }
  }
  for (const doc of composer.end()) {
    budget?.take();
    yield doc;
  }
}

/**
 * One YAML document's value (compose templates and files): a syntax error or a limit is a
 * 400 VALIDATION_ERROR `${where} is not valid YAML: …` on `field`.
 */
export function readYamlValue(text: string, where: string, field: string): unknown {
  const invalid = (why: string) => validationError(`${where} is not valid YAML: ${why.split('\n')[0]}`, field);
  let first: Document.Parsed | undefined;
  try {
    for (const doc of documentsOf(text, { prettyErrors: false, budget: new DocumentBudget(1) })) first = doc;
  } catch (e) {
    if (e instanceof YamlRefused) throw invalid('it holds more than one document');
    throw e;
  }
  if (!first) return null;
  if (first.errors.length) throw invalid(first.errors[0].message);
  try {
    return valueOf(first);
  } catch (e) {
    if (e instanceof YamlRefused) throw invalid(e.message);
    throw e;
  }
}
