// avsc computes schema fingerprints with Node's crypto; the decoders never do.
'use strict';
module.exports = {
  createHash() {
    throw new Error('kafka-fetch-decoder: Avro schema fingerprints are not available in this build');
  },
};
