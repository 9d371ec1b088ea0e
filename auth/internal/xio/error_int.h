/*
 * xio/error_int.h - what only the xio libraries write in an xio_error detail
 * record: its reason, which classifies the libraries' own failures; never
 * installed. What an engine writes (code, message, operation, target) is public in
 * <xio/error.h>. Part of libxio_auth's shared base (auth/base/error.c).
 */
#ifndef XIO_ERROR_INT_H
#define XIO_ERROR_INT_H

#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Sets e->reason; `e` may be NULL. Call it after xio_error_set, which clears it. */
void xio_error_set_reason(xio_error *e, xio_reason reason);

#ifdef __cplusplus
}
#endif
#endif /* XIO_ERROR_INT_H */
