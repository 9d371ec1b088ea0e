// gc_interval.js - loaded into Azurite by azurite.sh (node --require) before the
// emulator starts: sets how long its blob garbage collector sleeps between sweeps.
//
// Azurite 3.37 sweeps its in-memory store every 10 minutes, and a sweep over the many
// blobs a test run leaves behind stops the emulator answering for 20 to 80 s on a
// loaded 2-core machine: whichever test runs then times out. The sweep only returns
// the memory of deleted blobs; a test run (minutes, far less than the 6 GiB the
// emulator may hold) never needs it. XIO_AZURITE_GC_INTERVAL_MS sets the interval
// (default 6 hours; 600000 is Azurite's own).
"use strict";
const constants = require("azurite/dist/src/blob/utils/constants");
const ms = Number(process.env.XIO_AZURITE_GC_INTERVAL_MS || 6 * 3600 * 1000);
if (!Number.isFinite(ms) || ms <= 0) {
  console.error("XIO_AZURITE_GC_INTERVAL_MS must be a positive number of milliseconds");
  process.exit(2);
}
constants.DEFAULT_GC_INTERVAL_MS = ms;
