// A setting the gateway cannot start with: its message is one line naming the setting, which the
// command prints before it stops. In a file of its own so that features reading their own settings
// (identity's credentials file) can throw it without importing the whole configuration.
export class ConfigError extends Error {
  override name = 'ConfigError';
}
