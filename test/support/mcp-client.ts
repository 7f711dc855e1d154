import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * An MCP client of the official SDK connected to a running service over real HTTP
 * (initialize included). `token` null connects without Authorization.
 */
export async function connectMcp(baseUrl: string, token: string | null, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: { ...(token && { authorization: `Bearer ${token}` }), ...headers } },
  });
  const client = new Client({ name: 'stevedore-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Names of the tools the server lists for this client, sorted. */
export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).sort();
}
