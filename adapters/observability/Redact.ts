/**
 * Credentials in URLs never reach a message: `postgres://app:hunter2@db/x` is shown as
 * `postgres://app:[REDACTED]@db/x`, and query parameters that carry secrets
 * (`password`, `sslpassword`, `token`, `api_key`, ...) lose their values too.
 */

const redacted = "[REDACTED]";

// scheme://user:password@  (the user stays: it helps, and it is not a secret)
const userInfo = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/]*):([^\s@/]*)@/gi;
// ?password=... &sslkey=... (any parameter whose name suggests a secret)
const secretParam = /([?&](?:[a-z_]*password|[a-z_]*secret|[a-z_]*token|api_?key|sslkey|key)=)[^&\s#]*/gi;

/** `text` with every URL credential replaced by [REDACTED]; safe on text that holds no URL. */
export const redactUrl = (text: string): string =>
  text.replace(userInfo, (_m, scheme: string, user: string) => `${scheme}${user}:${redacted}@`).replace(secretParam, `$1${redacted}`);
