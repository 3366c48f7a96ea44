/**
 * Serves the OpenAPI document (GET /v1/openapi.json) and a browsable docs page (GET /v1/docs)
 * built from swagger-ui-dist's files in node_modules, so the page works offline (no CDN).
 */
import { createReadStream } from "node:fs";
import { join } from "node:path";
import type Router from "@koa/router";
import getAbsoluteFSPath from "swagger-ui-dist/absolute-path.js";
import type { OpenApiDocument } from "./OpenApi.js";

/** Where the document and the page are served. */
export interface ApiDocsOptions {
  readonly specPath?: string;
  readonly docsPath?: string;
  readonly title?: string;
}

// Only these files are served, so a crafted asset name can never reach another file.
const assets: Readonly<Record<string, string>> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "favicon-16x16.png": "image/png",
  "favicon-32x32.png": "image/png",
};

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The HTML of the docs page. */
export const docsPage = (options: { readonly specPath: string; readonly docsPath: string; readonly title: string }): string => {
  const base = escapeHtml(options.docsPath);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(options.title)}</title>
<link rel="stylesheet" href="${base}/swagger-ui.css">
<link rel="icon" type="image/png" href="${base}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${base}/swagger-ui-bundle.js"></script>
<script src="${base}/swagger-ui-standalone-preset.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: ${JSON.stringify(options.specPath)}, dom_id: "#swagger-ui",
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "StandaloneLayout" });
</script>
</body>
</html>
`;
};

/** Registers the document, the page and its assets on `router` (no authentication). */
export const mountApiDocs = (router: Router, document: () => OpenApiDocument, options: ApiDocsOptions = {}): Router => {
  const specPath = options.specPath ?? "/v1/openapi.json";
  const docsPath = options.docsPath ?? "/v1/docs";
  const title = options.title ?? "API documentation";
  const assetDir = getAbsoluteFSPath();
  let cached: OpenApiDocument | undefined;
  router.get(specPath, (ctx) => {
    cached ??= document();
    ctx.body = cached;
  });
  router.get(docsPath, (ctx) => {
    ctx.type = "text/html; charset=utf-8";
    ctx.body = docsPage({ specPath, docsPath, title });
  });
  router.get(`${docsPath}/:asset`, async (ctx, next) => {
    const type = Object.hasOwn(assets, ctx.params.asset ?? "") ? assets[ctx.params.asset ?? ""] : undefined;
    if (type === undefined) return next(); // falls through to 404 route_not_found
    ctx.type = type;
    ctx.set("Cache-Control", "public, max-age=86400");
    ctx.body = createReadStream(join(assetDir, ctx.params.asset ?? ""));
  });
  return router;
};
