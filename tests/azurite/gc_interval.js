// gc_interval.js - loaded into Azurite (node --require, through NODE_OPTIONS) before
// the emulator starts, by azurite.sh for the tests and by `xio emulator start` for
// everyone else: sets how long its blob garbage collector sleeps between sweeps.
//
// Azurite 3.37 sweeps its in-memory store every 10 minutes, and a sweep over the many
// blobs a test run leaves behind stops the emulator answering for 20 to 80 s on a
// loaded 2-core machine: whichever test runs then times out. The sweep only returns
// the memory of deleted blobs; a test run (minutes, far less than the 6 GiB the
// emulator may hold) never needs it. XIO_AZURITE_GC_INTERVAL_MS sets the interval
// (default 6 hours; 600000 is Azurite's own).
//
// Azurite's constants are found from the program node runs (the azurite-blob that
// was started, wherever it is installed), else through NODE_PATH.
"use strict";
const fs = require("fs");
const path = require("path");
const name = "azurite/dist/src/blob/utils/constants";

function constantsPath() {
  const program = process.argv[1];
  if (program) {
    try {
      return require.resolve(name, { paths: [path.dirname(fs.realpathSync(program))] });
    } catch (e) {
      // not below the program: NODE_PATH
    }
  }
  return require.resolve(name);
}

const ms = Number(process.env.XIO_AZURITE_GC_INTERVAL_MS || 6 * 3600 * 1000);
if (!Number.isFinite(ms) || ms <= 0) {
  console.error("XIO_AZURITE_GC_INTERVAL_MS must be a positive number of milliseconds");
  process.exit(2);
}
require(constantsPath()).DEFAULT_GC_INTERVAL_MS = ms;
