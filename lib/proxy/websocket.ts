// A WebSocket (the Realtime API) is no call the proxy can record: both proxies refuse it plainly
// rather than pass it on as a plain GET, whose refusal would be recorded as the agent's failure.

/** Whether an Upgrade header asks for a WebSocket (h2c and others are ordinary requests here). */
export const asksForWebSocket = (upgrade: string | null | undefined): boolean => /^\s*websocket\s*$/i.test(upgrade ?? "");

export const WEBSOCKET_REFUSAL = "sightdesk proxy: WebSocket connections (such as the Realtime API) are not proxied; connect to the provider directly";
