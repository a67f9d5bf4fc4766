// flechette (Arrow in JS): the column layer builds its record batches with it and writes Arrow IPC.
module.exports = require('@uwdata/flechette');
