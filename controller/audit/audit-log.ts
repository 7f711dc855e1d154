// The audit log is a table; its repository is the whole of it (controller/store/repositories/audit-logs.ts).
export { AuditLog, type AuditEntry, type AuditFilter } from '../store/repositories/audit-logs.js';
