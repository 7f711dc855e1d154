// Violates knex-only-in-store (a type-only import counts) and reaches the handle directly.
import type { Knex } from 'knex';

export const countUsers = (s: { db: Knex }) => s.db('users').count();
