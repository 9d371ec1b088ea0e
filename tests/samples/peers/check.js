// check.js OUT_DIR SIZE PAGES - checks what one run of the peer benchmark left in
// OUT_DIR: results.md has a row for every case and protocol with figures (not "-",
// not "failed") for both clients in every column and says how many runs; results.csv
// has a row per case, protocol and client with its good run (one of each, as
// smoke.sh asks: a benchmark that ignored BENCH_PEERS_SHORT_RUNS would make three of
// each short case); runs.json says every run succeeded
// (so every transfer's result was checked against its source). Prints what is
// wrong and exits 1, or prints "N passed, 0 failed" and exits 0.
"use strict";

const fs = require("fs");
const path = require("path");

const [out, size, pages] = process.argv.slice(2);
const human = { "4M": "4 MiB" }[size] || size;
const rows = [
  `upload ${human}`, `download ${human}`, `fragmented upload (${pages} pages)`,
  `fragmented download (${pages} pages)`, "8 KiB random writes, QD 1", "8 KiB random writes, QD 32",
];
const cases = ["upload", "download", "frag-upload", "frag-download", "randwrite-qd1", "randwrite-qd32"];
const protocols = ["http", "https"];
const RUNS = 1; // of every case
let passed = 0, failed = 0;

function expect(ok, what) {
  if (ok) passed++;
  else {
    failed++;
    console.log(`FAIL: ${what}`);
  }
}

const md = fs.readFileSync(path.join(out, "results.md"), "utf8").split("\n");
for (const label of rows)
  for (const p of protocols) {
    const line = md.find((l) => l.startsWith(`| ${label} | ${p} |`));
    expect(line, `results.md has a row for ${label} over ${p}`);
    if (!line) continue;
    const cells = line.split("|").slice(3, -1).map((c) => c.trim());
    expect(cells.length >= 9 && cells.length % 3 === 0, `${label} over ${p} has xio, JS and ratio columns`);
    expect(cells.every((c) => /^\d/.test(c)), `${label} over ${p}: every cell a figure (${cells.join(", ")})`);
  }

const csv = fs.readFileSync(path.join(out, "results.csv"), "utf8").trim().split("\n");
const head = csv[0].split(",");
const col = (r, name) => r.split(",")[head.indexOf(name)];
for (const c of cases)
  for (const p of protocols)
    for (const client of ["xio", "js"]) {
      const r = csv.find((l) => l.startsWith(`${c},${p},${client},`));
      expect(r && col(r, "runs") === String(RUNS) && col(r, "failed") === "0",
             `results.csv: ${c} over ${p} by ${client} has ${RUNS} good run(s)`);
    }
expect(/^Machine: \d+ cores \(.+\), .* RAM, Linux /m.test(md.join("\n")), "results.md names the machine");
expect(/^Medians of 1 run\b(?! \()/m.test(md.join("\n")),
       "results.md says how many runs each median is of");

const runs = JSON.parse(fs.readFileSync(path.join(out, "runs.json"), "utf8")).records;
const want = cases.length * RUNS * protocols.length * 2;
expect(runs.length === want, `runs.json has ${runs.length} runs, wanted ${want}`);
for (const r of runs.filter((x) => !x.ok)) expect(false, `${r.case} ${r.protocol} ${r.client}: ${r.error}`);

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
