// Replay protection is the incoming_webhook_replays table; its repository is the whole of it.
export { ReplayGuard, REPLAY_WINDOW_MS, type ReplayClaim } from '../store/repositories/incoming-webhook-replays.js';
