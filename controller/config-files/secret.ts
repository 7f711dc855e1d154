import { inspect } from 'node:util';

import { REDACTED } from '../crypto/redact.js';

/**
 * A secret value in memory. It prints as [REDACTED] in logs, JSON, template strings and
 * util.inspect, so a value can only leave through an explicit `reveal()` (Kamal's sensitive.rb).
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

