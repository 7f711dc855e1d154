/**
 * A third-party MCP client against the endpoint: the MCP Inspector's CLI mode
 * (@modelcontextprotocol/inspector-cli) lists the tools and calls one, over Streamable HTTP with a
 * bearer token. Starts the real service (MCP_ENABLED=true) on a fresh database of the PostgreSQL
 * at DATABASE_URL, with an admin and one environment, and checks what the inspector printed.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/mcp-inspector.ts
 *
 * The inspector is not a project dependency; install it anywhere and point INSPECTOR_CLI at it:
 *
 *   npm install --prefix /tmp/inspector @modelcontextprotocol/inspector-cli@1.0.3
 *   INSPECTOR_CLI=/tmp/inspector/node_modules/@modelcontextprotocol/inspector-cli/build/cli.js \
 *     DATABASE_URL=postgres://… npx tsx bench/mcp-inspector.ts
 *
 * inspector-cli 1.0.3 finds its own package.json through a path relative to the working directory
 * but imports it relative to its module, so installed on its own it only starts from its build
 * directory: this script runs it there.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startWithRoles } from '../test/support/fixtures.js';

const run = promisify(execFile);

const cli = process.env.INSPECTOR_CLI;
if (!cli) throw new Error('set INSPECTOR_CLI to the build/cli.js of an installed @modelcontextprotocol/inspector-cli (see the header)');

async function inspector(args: string[]): Promise<any> {
  const { stdout } = await run('node', [cli!, '--cli', ...args], { cwd: path.dirname(cli!), timeout: 120_000, maxBuffer: 16 << 20 });
  return JSON.parse(stdout);
}

const w = await startWithRoles({ MCP_ENABLED: 'true', LOG_LEVEL: 'warn' });
let failed = false;
try {
  const common = [new URL('/mcp', w.svc.url).href, '--transport', 'http', '--header', `Authorization: Bearer ${w.admin.token}`];

  const listed = await inspector([...common, '--method', 'tools/list']);
  const names: string[] = listed.tools.map((t: { name: string }) => t.name);
  console.log(`inspector tools/list: ${names.length} tools: ${names.join(', ')}`);

  const called = await inspector([...common, '--method', 'tools/call', '--tool-name', 'list_environments']);
  const page = JSON.parse(called.content[0].text);
  console.log(`inspector tools/call list_environments: ${page.total} environment(s): ${page.items.map((e: { name: string }) => e.name).join(', ')}`);

  const viaTool = await inspector([...common, '--method', 'tools/call', '--tool-name', 'list_servers', '--tool-arg', `envId=${w.envId}`]);
  console.log(`inspector tools/call list_servers envId=${w.envId}: isError=${viaTool.isError ?? false}`);

  failed = !names.includes('deploy_service') || page.items[0]?.id !== w.envId || viaTool.isError === true;
  console.log(failed ? 'FAILED: unexpected inspector output' : 'ok: the inspector listed the tools and called them');
} finally {
  await w.svc.stop();
}
process.exit(failed ? 1 : 0);
