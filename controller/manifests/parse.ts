import { isMap, isSeq, LineCounter, type Document, type Node } from 'yaml';
import { documentsOf, valueOf, YamlRefused, type DocumentBudget } from '../yaml/read-yaml.js';
import { runToEnd } from '../yaml/paced.js';
import type { ManifestError } from './types.js';

/** One YAML document of a file, with what is needed to point at any path inside it. */
export interface ParsedDocument {
  file: string;
  value: unknown;
  positionOf(path: string[], atKey?: boolean): { line: number; column: number };
}

/**
 * Parses the documents of one file's text (`${env:}` references already expanded). Syntax
 * errors are collected, not thrown, so a folder reports all of them at once; the other documents
 * of a file with a broken one are still validated (their errors are reported too), though the
 * folder as a whole applies nothing. A limit (controller/yaml/read-yaml.ts: alias expansions,
 * documents counted on `budget`) is `refused`: the file is not read further.
 *
 * A generator: it yields after each document so a caller can give the event loop a turn
 * (load.ts); `parseFile` runs it to the end at once.
 */
export function* parseFileSteps(path: string, text: string, budget?: DocumentBudget): Generator<void, ParsedFile> {
  const documents: ParsedDocument[] = [];
  const errors: ManifestError[] = [];
  const lineCounter = new LineCounter();
  try {
    for (const doc of documentsOf(text, { lineCounter, prettyErrors: false, uniqueKeys: true, budget })) {
      yield;
      if (doc.errors.length) {
        for (const e of doc.errors) {
          const pos = e.linePos?.[0] ?? lineCounter.linePos(e.pos[0]);
          errors.push({ file: path, line: pos.line, column: pos.col, path: '', message: `YAML: ${e.message.split('\n')[0]}` });
        }
        continue;
      }
      const value = doc.contents === null ? null : valueOf(doc);
      if (value === null || value === undefined) continue; // an empty document (e.g. a trailing ---)
      documents.push({
        file: path,
        value,
        positionOf: (at, atKey = false) => {
          const pos = lineCounter.linePos(offsetOf(doc, at, atKey));
          return { line: pos.line, column: pos.col };
        },
      });
    }
  } catch (e) {
    if (!(e instanceof YamlRefused)) throw e;
    const pos = lineCounter.linePos(Math.max(0, text.length - 1));
    errors.push({ file: path, line: pos.line, column: pos.col, path: '', message: `refused: ${e.message}`, refused: true });
  }
  return { documents, errors };
}

export interface ParsedFile {
  documents: ParsedDocument[];
  errors: ManifestError[];
}

export function parseFile(path: string, text: string, budget?: DocumentBudget): ParsedFile {
  return runToEnd(parseFileSteps(path, text, budget));
}

/** Start offset of the node at path, or of its deepest existing ancestor. */
function offsetOf(doc: Document, path: string[], atKey: boolean): number {
  let node = doc.contents as Node | null;
  let offset = node?.range?.[0] ?? 0;
  for (let i = 0; i < path.length && node; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => String((p.key as { value?: unknown })?.value ?? p.key) === seg);
      if (!pair) break;
      const keyOffset = (pair.key as Node | null)?.range?.[0];
      node = pair.value as Node | null;
      offset = (last && atKey ? keyOffset : node?.range?.[0] ?? keyOffset) ?? offset;
    } else if (isSeq(node)) {
      node = node.items[Number(seg)] as Node | null;
      offset = node?.range?.[0] ?? offset;
    } else break;
  }
  return offset;
}
