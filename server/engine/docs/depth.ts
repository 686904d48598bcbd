/** How deep a file's documentation goes: the one list plans, docs, search and the API's enums share. */
export const DOC_DEPTHS = ['basic', 'summary', 'full'] as const;
export type DocDepth = (typeof DOC_DEPTHS)[number];
