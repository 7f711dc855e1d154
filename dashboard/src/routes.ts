// The route table: one line and one file under pages/ per page. Pages with `nav` appear in the
// environment's navigation, in this order; later pages (metrics, images) join here.
import type { Route } from './router';
import { LoginPage } from './pages/login';
import { HomePage } from './pages/home';
import { OverviewPage, preloadOverview } from './pages/overview';
import { ServicePage } from './pages/service';
import { PlanPage } from './pages/plan';
import { DriftPage } from './pages/drift';
import { ConfigFilesPage } from './pages/config-files';
import { AuditPage } from './pages/audit';
import { DatabasesPage } from './pages/databases';
import { TopologyPage } from './pages/topology';
import { SettingsPage } from './pages/settings';

export const routes: Route[] = [
  { path: '/login', page: LoginPage, title: 'Sign in', public: true },
  { path: '/', page: HomePage, title: 'Environments' },
  { path: '/env/:envId', page: OverviewPage, title: 'Overview', nav: 'Overview', preload: preloadOverview },
  { path: '/env/:envId/drift', page: DriftPage, title: 'Drift', nav: 'Drift' },
  { path: '/env/:envId/config-files', page: ConfigFilesPage, title: 'Config files', nav: 'Config files' },
  { path: '/env/:envId/databases', page: DatabasesPage, title: 'Databases', nav: 'Databases' },
  { path: '/env/:envId/topology', page: TopologyPage, title: 'Topology', nav: 'Topology' },
  { path: '/env/:envId/audit', page: AuditPage, title: 'Audit log', nav: 'Audit log' },
  { path: '/env/:envId/settings', page: SettingsPage, title: 'Settings', nav: 'Settings', role: 'admin' },
  { path: '/env/:envId/services/:serviceId', page: ServicePage, title: 'Service' },
  { path: '/env/:envId/plans/:planId', page: PlanPage, title: 'Deployment plan' },
];
