export const path = '/api/thing';
