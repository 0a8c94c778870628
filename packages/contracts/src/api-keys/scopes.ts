/**
 * What an API key may do (issue 48 §2). Each `/api` route an integrator may call names the
 * one scope it needs on its descriptor (`scope` in `http/routes.ts`); a route without one
 * answers only a signed-in browser. The OpenAPI document shows each route's scope.
 */
export const API_KEY_SCOPES = ['lists:read', 'lists:write', 'send', 'reports:read'] as const;
export type TApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** What each scope allows, in the words the Settings screen and the OpenAPI document use. */
export const API_KEY_SCOPE_DESCRIPTIONS: Record<TApiKeyScope, string> = {
  'lists:read': 'Read mailing lists and their members.',
  'lists:write': 'Create and change lists; add, update, unsubscribe and remove members.',
  send: 'Send saved templates and emails, and manage those sends.',
  'reports:read': 'Read History and the figures of sends.',
};
