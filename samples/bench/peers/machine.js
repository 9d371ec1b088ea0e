// machine.js - what the peer benchmark's results are labelled with: the machine
// (cores, CPU model, memory, kernel, load when the run began) and the versions of
// everything measured (xio, Azurite, the JavaScript SDK, Node.js, libcurl, OpenSSL).
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const { spawnSync } = require("child_process");

function firstLine(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return r.status === 0 ? r.stdout.split("\n")[0].trim() : "unknown";
}

function packageVersion(nodeModules, name) {
  try {
    return JSON.parse(fs.readFileSync(path.join(nodeModules, name, "package.json"), "utf8")).version;
  } catch {
    return "unknown";
  }
}

function cpuModel() {
  const m = /^model name\s*:\s*(.*)$/m.exec(fs.readFileSync("/proc/cpuinfo", "utf8"));
  return m ? m[1].trim() : os.cpus()[0]?.model || "unknown";
}

// The label: {key: value} in the order it is shown.
function describe(xio, nodeModules) {
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    cores: String(os.availableParallelism ? os.availableParallelism() : os.cpus().length),
    cpu: cpuModel(),
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    kernel: os.release(),
    "load at start": fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
    xio: firstLine(xio, ["--version"]),
    Azurite: packageVersion(nodeModules, "azurite"),
    "@azure/storage-blob": packageVersion(nodeModules, "@azure/storage-blob"),
    "Node.js": process.version,
    libcurl: firstLine("pkg-config", ["--modversion", "libcurl"]),
    OpenSSL: firstLine("openssl", ["version"]),
  };
}

module.exports = { describe };
