/**
 * Types for the one file of swagger-ui-dist we load. Its main entry also evaluates the 1.5 MB
 * browser bundle in Node (~0.4 s at startup), so ApiDocs.ts imports only `absolute-path.js`,
 * which is the same `getAbsoluteFSPath` the main entry exports.
 */
declare module "swagger-ui-dist/absolute-path.js" {
  /** The absolute directory of the swagger-ui-dist assets. */
  const getAbsoluteFSPath: () => string;
  export default getAbsoluteFSPath;
}
