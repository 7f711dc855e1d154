export { minRole, scopesFor } from '../../controller/auth/roles.js';
