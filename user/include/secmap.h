/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libsecmap: read where the kernel loaded each section of each module.
 *
 * Conventions (as libbpf): opaque handles, functions named object_verb,
 * negative errno on failure (errno is set too), no printing from the
 * library. Handles returned by a snapshot belong to it and stay valid
 * until secmap_snapshot_free().
 */
#ifndef SECMAP_H
#define SECMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct secmap_client;	/* a netlink socket bound to the secmap family */
struct secmap_snapshot;	/* every loaded module with its sections, at one time */
struct secmap_module;
struct secmap_section;

/*
 * Open a client. -ENOENT: the secmap family is not registered (module not
 * loaded); -EPERM/-EACCES: not allowed to open netlink sockets.
 */
int secmap_client_open(struct secmap_client **client);
void secmap_client_close(struct secmap_client *client);

/*
 * Dump all modules. -EPERM: the caller lacks the capability the kernel
 * asks for; -EPROTO: the kernel sent a message libsecmap cannot parse.
 */
int secmap_client_dump(struct secmap_client *client, struct secmap_snapshot **snapshot);

void secmap_snapshot_free(struct secmap_snapshot *snapshot);
size_t secmap_snapshot_module_count(const struct secmap_snapshot *snapshot);
const struct secmap_module *secmap_snapshot_module(const struct secmap_snapshot *snapshot,
						   size_t index);
/* NULL if absent; '-' and '_' in @name are treated alike, as modprobe does. */
const struct secmap_module *secmap_snapshot_find(const struct secmap_snapshot *snapshot,
						 const char *name);

const char *secmap_module_name(const struct secmap_module *module);
size_t secmap_module_section_count(const struct secmap_module *module);
const struct secmap_section *secmap_module_section(const struct secmap_module *module,
						   size_t index);
/* NULL if the module has no section of that exact name. */
const struct secmap_section *secmap_module_find_section(const struct secmap_module *module,
							const char *name);

const char *secmap_section_name(const struct secmap_section *section);
uint64_t secmap_section_addr(const struct secmap_section *section);

/* A static string describing a negative return value of this library. */
const char *secmap_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* SECMAP_H */
