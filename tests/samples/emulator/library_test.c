/*
 * library_test.c - the emulator library (xio_emulator.h) on its own, as a test
 * harness or an engine's tests use it without the command line: a profile's name and
 * a fault spec checked, the spec written back as the proxy takes it; a start with the
 * starter and the proxy named in the options, what a status reads, a second start
 * refused with the running emulator described, a stop that leaves no process and
 * returns the proxy's counts; and a start whose Azurite cannot be found, which
 * returns the end of the starter's log and leaves nothing behind.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emurun.h"
#include "test.h"
#include "xio_emulator.h"

#if !defined(XIO_EMU_AZURITE_SH) || !defined(XIO_EMU_FAULTPROXY)
#error "XIO_EMU_AZURITE_SH and XIO_EMU_FAULTPROXY must be defined"
#endif

TEST(library_checks_profiles_and_fault_specs) {
  xio_error err;
  char spec[256];
  ASSERT_EQ(xio_emulator_profile_check("premium-p30", &err), XIO_OK);
  ASSERT_EQ(xio_emulator_profile_check("bogus", &err), XIO_EINVAL);
  ASSERT_CONTAINS(err.message, "unknown profile 'bogus'");
  ASSERT_EQ(xio_emulator_faults_check("503=10%,stall=1%", spec, sizeof spec, &err), XIO_OK);
  ASSERT_STR_EQ(spec, "503=10%:1000ms,stall=1%:3000ms");
  ASSERT_EQ(xio_emulator_faults_check("torn=5%:100ms", NULL, 0, &err), XIO_EINVAL);
  ASSERT_CONTAINS(err.message, "fault 'torn' takes no duration");
  ASSERT_STR_EQ(xio_emulator_fault_name(0), "503");
  ASSERT_STR_EQ(xio_emulator_fault_name(XIO_EMULATOR_FAULT_KINDS - 1), "stall");
  ASSERT_STR_EQ(xio_emulator_fault_name(XIO_EMULATOR_FAULT_KINDS), "?");
}

/* The options of a harness that runs the source tree's starter and the built proxy. */
static xio_emulator_options options(const char *dir) {
  xio_emulator_options o = xio_emulator_options_default();
  o.dir = dir;
  o.azurite_sh = XIO_EMU_AZURITE_SH;
  o.faultproxy = XIO_EMU_FAULTPROXY;
  o.memory_mib = 256;
  return o;
}

/* What clients are told of `st`: the proxy's endpoint and the account on it. */
static void expect_endpoints(const xio_emulator_state *st) {
  char ep[256], cs[512], want[300];
  ASSERT_STR_EQ(xio_emulator_front_url(st), st->proxy_url);
  xio_emulator_blob_endpoint(st, ep, sizeof ep);
  snprintf(want, sizeof want, "%s/devstoreaccount1", st->proxy_url);
  ASSERT_STR_EQ(ep, want);
  xio_emulator_connection_string(st, cs, sizeof cs);
  snprintf(want, sizeof want, "BlobEndpoint=%s;", ep);
  ASSERT_CONTAINS(cs, want);
}

TEST(library_starts_reads_and_stops_an_emulator) {
  const char *dir = emurun_dir();
  xio_emulator_options o = options(dir);
  xio_emulator_state st, again;
  xio_emulator_status s;
  xio_emulator_stopped stopped;
  xio_error err;
  o.faults = "500=1%";
  o.seed = 5;
  ASSERT_EQ(xio_emulator_start(&o, &st, NULL, &err), XIO_OK);
  ASSERT(emurun_pid_runs(st.azurite.pid));
  ASSERT(emurun_pid_runs(st.proxy.pid));
  ASSERT_STR_EQ(st.faults, "500=1%");
  ASSERT_STR_EQ(st.profile, "standard");
  ASSERT_EQ(st.seed, 5);
  expect_endpoints(&st);

  ASSERT_EQ(xio_emulator_status_read(dir, &s, &err), XIO_OK);
  ASSERT(s.found && s.running && s.azurite_running && s.proxy_running);
  ASSERT_EQ(s.state.azurite.pid, st.azurite.pid);
  ASSERT_STR_EQ(s.state.proxy_url, st.proxy_url);
  ASSERT(s.stats.valid);

  ASSERT_EQ(xio_emulator_start(&o, &again, NULL, &err), XIO_EEXIST);
  ASSERT_STR_EQ(err.operation, "StartEmulator");
  ASSERT_EQ(again.azurite.pid, st.azurite.pid);

  ASSERT_EQ(xio_emulator_stop(dir, &stopped, &err), XIO_OK);
  ASSERT(stopped.found);
  ASSERT_EQ(stopped.state.proxy.pid, st.proxy.pid);
  ASSERT(stopped.stats.valid);
  ASSERT(!emurun_pid_runs(st.azurite.pid));
  ASSERT(!emurun_pid_runs(st.proxy.pid));
  ASSERT_EQ(xio_emulator_status_read(dir, &s, &err), XIO_OK);
  ASSERT(!s.found && !s.running);
  ASSERT_EQ(xio_emulator_stop(dir, &stopped, &err), XIO_OK);
  ASSERT(!stopped.found);
}

TEST(library_returns_the_starters_words_when_azurite_is_missing) {
  const char *dir = emurun_dir();
  xio_emulator_options o = options(dir);
  xio_emulator_state st;
  xio_emulator_status s;
  xio_emulator_log log;
  xio_error err;
  ASSERT_EQ(setenv("XIO_AZURITE", "/nonexistent/azurite-blob", 1), 0);
  xio_err rc = xio_emulator_start(&o, &st, &log, &err);
  ASSERT_EQ(unsetenv("XIO_AZURITE"), 0);
  ASSERT_EQ(rc, XIO_EIO);
  ASSERT_STR_EQ(err.operation, "StartEmulator");
  ASSERT_CONTAINS(err.message, "Azurite did not start");
  ASSERT_CONTAINS(log.path, "/start.log");
  ASSERT_CONTAINS(log.tail, "XIO_AZURITE names /nonexistent/azurite-blob");
  ASSERT_EQ(st.azurite.pid, 0);
  ASSERT_EQ(xio_emulator_status_read(dir, &s, &err), XIO_OK);
  ASSERT(!s.found);
}
