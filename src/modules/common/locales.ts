// The languages Portico speaks: the inquiry's `locale`, the e-mails, the form, the MCP App, the consent
// page and the authorization server's `ui_locales_supported` (RFC 8414) all use this one list.
export const LOCALES = ['es', 'en', 'ca', 'ru', 'eu', 'gl'] as const;
export type Locale = (typeof LOCALES)[number];
