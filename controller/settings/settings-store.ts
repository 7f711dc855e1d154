// Environment settings are a table; their repository is the whole of it.
export { SettingsStore } from '../store/repositories/environment-settings.js';
