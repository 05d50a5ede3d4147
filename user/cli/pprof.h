/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A profile in pprof's format (profile.proto, gzipped), from resolved
 * samples (cli/pprof.c): what go tool pprof, Parca, Pyroscope and other
 * continuous profilers read.
 */
#ifndef SECMAP_PPROF_H
#define SECMAP_PPROF_H

#include <stddef.h>

#include "secmap_cli.h"

struct pprof;

/* A profile of @nr_events events named @names; NULL if out of memory. */
struct pprof *pprof_new(size_t nr_events, const char *const *names);
/* One sample (its callchain if it has one, else its own frame): 0 or -ENOMEM. */
int pprof_add(struct pprof *p, const struct secmap_sample *s);
/* The profile, gzipped, to @fd: 0, -ENOMEM, -EIO or -errno of write(). */
int pprof_write(struct pprof *p, int fd);
void pprof_free(struct pprof *p);

#endif /* SECMAP_PPROF_H */
