import crypto from 'node:crypto';
import { base62, sha256Hex } from './api-token.js';

/** Agent tokens: `agt_` + 32 random bytes in base62, stored as SHA-256 only (like API tokens). */
export const AGENT_TOKEN_PREFIX = 'agt_';

export const generateAgentToken = (): string => AGENT_TOKEN_PREFIX + base62(crypto.randomBytes(32));
export const agentTokenHash = (token: string): string => sha256Hex(token);
/** What reads show of a token: enough to tell two apart, never enough to use one. */
export const agentTokenPrefix = (token: string): string => token.slice(0, 10);
