// The hosted service's `domain` option (docs/migrating.md): a bare host gets https, a full URL is used as it is.
export function domainUrl(domain: string): string {
  return /^https?:\/\//i.test(domain) ? domain : `https://${domain}`;
}
