/** The events of GET /api/events, as the contract (main/protocol/events.ts) defines them. */
export { EVENT_NAMES, EVENT_SCHEMAS, GAP_EVENT, isEventName } from '../../main/protocol/events.js';
export type { ClawLoopEvent, EventData, EventName } from '../../main/protocol/events.js';
