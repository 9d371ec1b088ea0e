/*
 * clock.c - the monotonic clock the samples time operations with.
 */
#include <xio/base.h>

#include "samples_common.h"

double samples_now(void) { return (double)xio_auth_monotonic_us() / 1e6; }
