// The route table: one line and one file under pages/ per page. Pages with `nav` appear in the
// environment's navigation, in this order; the kinds' list pages come from kinds.ts.
import type { Route } from './router';
import { LoginPage } from './pages/login';
import { EnvironmentsPage, HomePage } from './pages/home';
import { OverviewPage, preloadOverview } from './pages/overview';
import { ServicePage } from './pages/service';
import { PlanPage } from './pages/plan';
import { DriftPage } from './pages/drift';
import { ConfigFilesPage } from './pages/config-files';
import { AuditPage } from './pages/audit';
import { DatabasesPage } from './pages/databases';
import { JobsPage } from './pages/jobs';
import { TopologyPage } from './pages/topology';
import { SettingsPage } from './pages/settings';
import { MetricsPage } from './pages/metrics';
import { AdminPage } from './pages/admin';
import { GitSourcePage } from './pages/git-source';
import { SystemSettingsPage } from './pages/system-settings';
import { CliTokenPage } from './pages/cli-token';
import { resourcePage } from './pages/resources';
import { KIND_VIEWS, type KindView } from './kinds';

const kind = (key: string): Route => {
  const view = KIND_VIEWS.find((v) => v.key === key) as KindView;
  return { path: `/env/:envId/${key}`, page: resourcePage(view), title: view.title, nav: view.title, role: view.viewRole };
};

export const routes: Route[] = [
  { path: '/login', page: LoginPage, title: 'Sign in', public: true },
  // `stevedore login --sso` lands here after single sign-on: the token to paste into the terminal
  { path: '/cli-token', page: CliTokenPage, title: 'Sign in the CLI' },
  { path: '/', page: HomePage, title: 'Environments' },
  { path: '/environments', page: EnvironmentsPage, title: 'Environments' },
  { path: '/env/:envId', page: OverviewPage, title: 'Overview', nav: 'Overview', preload: preloadOverview },
  kind('servers'),
  { path: '/env/:envId/metrics', page: MetricsPage, title: 'Metrics', nav: 'Metrics' },
  kind('services'),
  kind('images'),
  kind('registries'),
  kind('volumes'),
  { path: '/env/:envId/config-files', page: ConfigFilesPage, title: 'Config files', nav: 'Config files' },
  kind('secrets'),
  kind('vars'),
  kind('webhooks'),
  { path: '/env/:envId/drift', page: DriftPage, title: 'Drift', nav: 'Drift' },
  { path: '/env/:envId/git', page: GitSourcePage, title: 'Git source', nav: 'Git source' },
  { path: '/env/:envId/databases', page: DatabasesPage, title: 'Databases', nav: 'Databases' },
  { path: '/env/:envId/jobs', page: JobsPage, title: 'Jobs', nav: 'Jobs' },
  { path: '/env/:envId/topology', page: TopologyPage, title: 'Topology', nav: 'Topology' },
  { path: '/env/:envId/audit', page: AuditPage, title: 'Audit log', nav: 'Audit log' },
  { path: '/env/:envId/settings', page: SettingsPage, title: 'Settings', nav: 'Settings', role: 'admin' },
  { path: '/env/:envId/admin', page: AdminPage, title: 'Admin', nav: 'Admin', role: 'admin' },
  // the installation's settings (not the environment's): any environment's navigation leads there,
  // for an unrestricted admin only (its routes need one: a lowered admin would meet 403s)
  { path: '/env/:envId/system', page: SystemSettingsPage, title: 'System settings', nav: 'System settings', role: 'installation' },
  // each admin kind on a page of its own too (no navigation entry: the Admin page holds them all);
  // users need an unrestricted admin, tokens an admin (a lowered one sees their own)
  { ...kind('users'), nav: undefined },
  { ...kind('tokens'), nav: undefined },
  { path: '/env/:envId/services/:serviceId', page: ServicePage, title: 'Service' },
  { path: '/env/:envId/plans/:planId', page: PlanPage, title: 'Deployment plan' },
];
