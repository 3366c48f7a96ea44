/**
 * Which projects a read covers: a short list of ids (bound as parameters), or every project a
 * user can see (owned workspaces' projects and its project memberships), filtered by membership
 * inside the query so the work and the statement's size never grow with the membership count.
 */
export type ProjectScope =
  | { readonly projectIds: ReadonlyArray<string> }
  | { readonly visibleTo: string; readonly workspaceId?: string | undefined };

/** True when the scope is a list of ids. */
export const isListedScope = (scope: ProjectScope): scope is { readonly projectIds: ReadonlyArray<string> } => "projectIds" in scope;
