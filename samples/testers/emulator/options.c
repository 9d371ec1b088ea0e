/*
 * options.c - what an emulator is started with: the defaults, and the checks of the
 * profile's name and the fault spec. Both are the fault proxy's own words
 * (faultspec.h, the pure part of the proxy), so that what the library accepts is what
 * xio-faultproxy takes, and a spec is written back as the proxy reads it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "emulator_int.h"
#include "faultspec.h"

_Static_assert(XIO_EMULATOR_FAULT_KINDS == FAULTPROXY_NRULES,
               "the emulator counts every kind of fault the proxy injects");

xio_emulator_options xio_emulator_options_default(void) {
  xio_emulator_options o;
  memset(&o, 0, sizeof o);
  o.profile = "standard";
  o.seed = 1;
  o.memory_mib = XIO_EMULATOR_MEMORY_MIB_DEFAULT;
  o.idle_sweep_ms = XIO_EMULATOR_IDLE_SWEEP_MS_DEFAULT;
  return o;
}

xio_err xio_emulator_profile_check(const char *name, xio_error *err) {
  faultproxy_profile prof;
  char msg[512];
  if (faultproxy_profile_parse(name, &prof, msg, sizeof msg) == 0) return XIO_OK;
  return xio_error_set(err, XIO_EINVAL, "%s", msg);
}

xio_err xio_emulator_faults_check(const char *spec, char *out, size_t size, xio_error *err) {
  faultproxy_rates rates;
  char msg[512];
  if (faultproxy_rates_parse(spec, &rates, msg, sizeof msg) != 0)
    return xio_error_set(err, XIO_EINVAL, "%s", msg);
  if (out && size) faultproxy_rates_format(&rates, out, size);
  return XIO_OK;
}

const char *xio_emulator_fault_name(int kind) { return faultproxy_rule_name(kind); }
