/** The search and research panel (issue 7). */
export {};
