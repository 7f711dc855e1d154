import type { Services } from '../../controller/services.js';
import type { InstallOptions } from '../../controller/monitoring/agent/install-agent.js';
import { int, str } from '../http/schema.js';
import type { Ctx } from '../http/types.js';

/** What installing the agent takes (POST /api/servers/{id}/agent, and metrics-mode to agent). */
export const agentInstallFields = {
  controllerUrl: str({ pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$', maxLength: 2000 }),
  waitSec: int(0, 60, { default: 15 }),
};
export type AgentInstallBody = { controllerUrl?: string; waitSec: number };

/** Where the server's agent posts: the body's URL, else STEVEDORE_PUBLIC_URL, else the URL this request came in by. */
export const agentInstallOptions = (s: Services, ctx: Ctx, body: AgentInstallBody): InstallOptions => ({
  controllerUrl: (body.controllerUrl ?? s.config.publicUrl ?? `${ctx.protocol}://${ctx.host}`).replace(/\/+$/, ''),
  waitMs: body.waitSec * 1000,
});
