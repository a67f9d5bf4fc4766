// msgpackr's decoder, and the marker it returns for the byte 0xC1 (never used in MessagePack).
const { Unpackr, C1 } = require('msgpackr');

module.exports = { Unpackr, C1 };
