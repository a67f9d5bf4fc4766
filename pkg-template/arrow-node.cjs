// The Arrow entry in Node (CommonJS): the column layer inside lib.cjs, the same instance as the
// main entry's (its results are the ones it reads); flechette is required on first use.
'use strict';
require('./node.cjs');
module.exports = { ...require('./lib.cjs').arrow };
