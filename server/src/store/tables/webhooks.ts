// Tables of the webhooks area (owned by its migration and repositories).
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the webhooks area.
export interface WebhooksTables {}
