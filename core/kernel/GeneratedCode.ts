/**
 * Code generated once per shape (a struct, a record type, a statement's column list), so a hot
 * loop runs straight-line code with constant keys instead of looping over keys held in variables.
 * The compiled encoder (FastEncoder.ts), the row codecs and SQLite's row objects make their
 * functions here.
 */

/**
 * `name` as a key of a generated object literal: a JSON string literal, or the computed
 * `["__proto__"]` (a plain `"__proto__":` entry would set the prototype instead of a property).
 */
export const literalKey = (name: string): string => (name === "__proto__" ? `["__proto__"]` : JSON.stringify(name));

/**
 * The function `function <name>(<params>) { <body> }`, made once, whose body may call the values
 * of `bindings` by their names (encoders, readers, markers).
 */
export const generatedFunction = <F>(name: string, params: ReadonlyArray<string>, body: string, bindings: ReadonlyArray<readonly [string, unknown]> = []): F => {
  const make = new Function(...bindings.map(([binding]) => binding), `return function ${name}(${params.join(", ")}) {\n${body}\n};`) as (...values: ReadonlyArray<unknown>) => F;
  return make(...bindings.map(([, value]) => value));
};
