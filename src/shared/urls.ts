/** Public base URLs of the listeners, as the outside world reaches them. */
export interface Urls {
  web(): string;
  sandboxApi(): string;
  liveApi(): string;
  operator(): string;
  /** `{checkout_url}`: CHECKOUT_BASE_URL, or the web listener. */
  checkout(): string;
}
