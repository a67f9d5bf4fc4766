// msgpackr's decoder.
module.exports = { Unpackr: require('msgpackr').Unpackr };
