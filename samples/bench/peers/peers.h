/*
 * peers.h - the xio side of the peer benchmark (xio-peers): measuring a client
 * process as a whole, making its input files, seeding a blob the same way for every
 * client, and xio's own 8 KiB random writes. bench.js drives it; each subcommand is
 * one file here.
 */
#ifndef XIO_PEERS_H
#define XIO_PEERS_H

#include <stdint.h>
#include <stdio.h>

#include <xio/xio.h>

#include "samples_common.h"
#include "samples_pump.h"

/* Subcommands: each takes the arguments after its name and returns the exit status
 * (0 done, 1 failed, 2 bad usage), having printed what went wrong to stderr. */
int peers_run(int argc, char **argv);
int peers_mkfile(int argc, char **argv);
int peers_seed(int argc, char **argv);
int peers_verify(int argc, char **argv);
int peers_randwrite(int argc, char **argv);

/** A context for page-blob work with `depth` requests on the wire: credentials,
 *  CA bundle and the rest from the environment, as the xio command takes them. */
xio_err peers_ctx(int depth, xio_ctx **out, xio_error *err);

/** Parses a size ("8K", "1G") or a count for option `name`; prints the reason and
 *  returns -1 when it is not one. */
int peers_size_arg(const char *name, const char *text, uint64_t *out);

/** Prints "xio-peers: WHAT: the error" to stderr and returns 1. */
int peers_fail(const char *what, const xio_error *e);

/** Sorts `v` and returns its q-quantile (0 for an empty array). */
double peers_quantile(double *v, uint64_t n, double q);

#endif /* XIO_PEERS_H */
