/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* libsecmap private declarations, shared by the library and its unit tests. */
#ifndef LIBSECMAP_INTERNAL_H
#define LIBSECMAP_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "secmap.h"

struct nlmsghdr;

/*
 * Everything is built with -fvisibility=hidden; only what is marked here
 * reaches the dynamic symbol table (the version script then pins versions).
 */
#define SECMAP_EXPORT __attribute__((visibility("default")))

struct secmap_section {
	char *name;
	uint64_t addr;
};

struct secmap_module {
	char *name;
	struct secmap_section *sections;
	size_t nr_sections;
	size_t cap_sections;
};

struct secmap_snapshot {
	struct secmap_module *modules;
	size_t nr_modules;
	size_t cap_modules;
};

/* Every failure path returns -err and leaves err in errno, as the API promises. */
static inline int libsecmap_err(int err)
{
	errno = -err;
	return err;
}

struct secmap_snapshot *libsecmap_snapshot_new(void);
/* Takes ownership of @mod's contents on success only. */
int libsecmap_snapshot_add_module(struct secmap_snapshot *snap, struct secmap_module *mod);
void libsecmap_module_release(struct secmap_module *mod);
/* Takes ownership of @name on success only. */
int libsecmap_module_add_section(struct secmap_module *mod, char *name, uint64_t addr);

/*
 * Parse one SECMAP_CMD_MODULE_GET reply (generic netlink header included)
 * and append the module to @snap. Trusts nlh->nlmsg_len to bound the
 * message, as mnl_cb_run() has checked it against the receive buffer.
 * Returns 0 or -EPROTO; @snap is unchanged on failure.
 */
int libsecmap_parse_module_msg(const struct nlmsghdr *nlh, struct secmap_snapshot *snap);

#endif /* LIBSECMAP_INTERNAL_H */
