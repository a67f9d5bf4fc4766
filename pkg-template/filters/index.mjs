// The record filters, for the command line and the scan's workers (the Where language is public:
// parseWhere in the package's API).
export { grepTest } from './grep.mjs';
export { headerText, plainValue, recordView } from './record-view.mjs';
export { parseWhere } from './where.mjs';
