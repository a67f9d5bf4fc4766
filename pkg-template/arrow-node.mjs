// The Arrow entry in Node (ES module): the CommonJS one's single instance.
import api from './arrow-node.cjs';

export const { arrowIPC, arrowLibrary, ArrowStreamWriter, compact, takeRows, toArrow, toParquet, withDecoded } = api;
