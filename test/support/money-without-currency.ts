/**
 * The OpenAPI check of docs/conventions.md, HTTP ("Money is `*_minor` integers plus an ISO 4217
 * `currency`"): which success answers of a module's operations carry a `*_minor` amount with no
 * `currency` beside it or above it. Used by the commerce and delivery money tests.
 */

type JsonSchema = Record<string, unknown>;

export interface OpenApiDocument {
  readonly paths: Record<string, Record<string, { readonly tags?: ReadonlyArray<string>; readonly responses?: Record<string, { readonly content?: Record<string, { readonly schema?: JsonSchema }> }> }>>;
  readonly components?: { readonly schemas?: Record<string, JsonSchema> };
}

/** Every `<METHOD> <path> <status>: <where>: <fields>` of operations tagged `tag` whose money has no currency. */
export const moneyWithoutCurrency = (document: OpenApiDocument, tag: string): ReadonlyArray<string> => {
  const named = document.components?.schemas ?? {};
  const resolve = (schema: unknown): JsonSchema | undefined => {
    if (typeof schema !== "object" || schema === null) return undefined;
    const ref = (schema as { $ref?: unknown }).$ref;
    return typeof ref === "string" ? named[ref.split("/").pop()!] : (schema as JsonSchema);
  };
  const walk = (schema: unknown, where: string, hasCurrency: boolean, seen: ReadonlySet<JsonSchema>, found: string[]): void => {
    const s = resolve(schema);
    if (s === undefined || seen.has(s)) return;
    const inside = new Set(seen).add(s);
    for (const key of ["anyOf", "oneOf", "allOf"]) for (const part of (s[key] as unknown[] | undefined) ?? []) walk(part, where, hasCurrency, inside, found);
    if (s.items !== undefined) walk(s.items, `${where}[]`, hasCurrency, inside, found);
    const properties = s.properties as Record<string, unknown> | undefined;
    if (properties === undefined) return;
    const names = Object.keys(properties);
    const currency = hasCurrency || names.includes("currency");
    const money = names.filter((name) => name.endsWith("_minor"));
    if (money.length > 0 && !currency) found.push(`${where || "."}: ${money.join(", ")}`);
    for (const name of names) walk(properties[name], `${where}.${name}`, currency, inside, found);
  };
  const found: string[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!(operation.tags ?? []).includes(tag)) continue;
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!status.startsWith("2")) continue;
        const inOperation: string[] = [];
        walk(response.content?.["application/json"]?.schema, "", false, new Set(), inOperation);
        for (const where of inOperation) found.push(`${method.toUpperCase()} ${path} ${status} ${where}`);
      }
    }
  }
  return found;
};
