/**
 * The floor the API is measured against: a minimal Koa app on a pg Pool that answers the same
 * URL as Stevedore's `GET /api/environments/{envId}/settings/{module}` with the same single
 * SELECT, and nothing else (no authentication, no middleware). Run by bench/api-floor.ts:
 *
 *   DATABASE_URL=… PORT=… npx tsx bench/floor/koa-pg.ts
 */
import http from 'node:http';
import Koa from 'koa';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_MAX ?? 10) });
const SETTINGS = /^\/api\/environments\/([0-9a-f-]{36})\/settings\/(\w+)$/;
const SQL = 'select s.values from environments e left join environment_settings s on s.environment_id = e.id and s.module = $2 where e.id = $1 limit 1';

const app = new Koa();
app.use(async (ctx) => {
  const m = SETTINGS.exec(ctx.path);
  if (!m) return;
  const { rows } = await pool.query(SQL, [m[1], m[2]]);
  if (!rows.length) return;
  ctx.body = rows[0].values ?? {};
});

const server = http.createServer(app.callback());
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('listening'));
process.on('SIGTERM', () => server.close(() => void pool.end()));
