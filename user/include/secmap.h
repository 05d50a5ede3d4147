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

/* enum secmap_module_state, secmap_region_type, secmap_section_flags, ... */
#include <linux/secmap.h>

#ifdef __cplusplus
extern "C" {
#endif

struct secmap_client;	/* a netlink socket bound to the secmap family */
struct secmap_snapshot;	/* every loaded module with its sections, at one time */
struct secmap_module;
struct secmap_section;
struct secmap_region;
struct secmap_event;	/* one notification from the "events" group */

/* SECMAP_CMD_INFO_GET reply. */
struct secmap_info {
	uint32_t version;	/* SECMAP_GENL_VERSION of the kernel module */
	uint32_t hook;		/* enum secmap_hook */
	uint64_t generation;	/* bumped on every load, init completion, unload */
	char release[65];	/* kernel release, as uname -r */
	/*
	 * Sequence number of the last event, read with @generation: a dump
	 * during which the generation stays the same includes every event up
	 * to it. 0: no event yet.
	 */
	uint64_t event_seq;
};

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
/*
 * Dumps flagged NLM_F_DUMP_INTR (modules changed mid-dump) are retried;
 * after this many in a row secmap_client_dump() gives up with -EAGAIN.
 */
#define SECMAP_DUMP_MAX_TRIES 16
/*
 * Receive dumps in parts of about @bytes (at least 4096) instead of the
 * default 32 KiB: the kernel sizes each part by the largest buffer the
 * socket has been read with, so this reopens the request socket. Smaller
 * parts mean more of them, and more chances of NLM_F_DUMP_INTR.
 */
int secmap_client_set_recv_size(struct secmap_client *client, size_t bytes);
/* How many dumps were retried because of NLM_F_DUMP_INTR, since open. */
unsigned long secmap_client_dump_retries(const struct secmap_client *client);
/* One module (a snapshot holding just it). -ENOENT: not loaded. */
int secmap_client_get(struct secmap_client *client, const char *name,
		      struct secmap_snapshot **snapshot);
int secmap_client_info(struct secmap_client *client, struct secmap_info *info);

/*
 * Events. Subscribe (-EPERM without the capability the kernel asks for
 * reading addresses), then poll secmap_client_fd() and call
 * secmap_client_next_event(). -EAGAIN: nothing within @timeout_ms (0: don't
 * wait, -1: forever).
 *
 * Events are not lost silently. When some were (the socket overran, or the
 * sequence numbers jump), the library re-dumps and returns one event of
 * type SECMAP_EVENT_RESYNC instead: secmap_event_snapshot() holds every
 * module as it is now, secmap_event_lost() how many events it replaces.
 * Events the snapshot already includes are then skipped. If the re-dump
 * fails (-EBUSY: modules kept changing; or the dump's own errors), the
 * loss stays pending and the next call tries again. Likewise, once
 * subscribed, secmap_client_dump() returns a snapshot the following
 * events continue exactly (none it includes, none missing). Events sent
 * before secmap_client_subscribe() returns are not delivered.
 */
#define SECMAP_EVENT_RESYNC 0x100
int secmap_client_subscribe(struct secmap_client *client);
int secmap_client_fd(const struct secmap_client *client);
int secmap_client_next_event(struct secmap_client *client, struct secmap_event **event,
			     int timeout_ms);
void secmap_event_free(struct secmap_event *event);
uint32_t secmap_event_type(const struct secmap_event *event);	/* SECMAP_CMD_MODULE_*_NTF */
uint64_t secmap_event_seq(const struct secmap_event *event);
uint64_t secmap_event_time_local_ns(const struct secmap_event *event);
uint64_t secmap_event_time_mono_ns(const struct secmap_event *event);
/* Events not delivered one by one before this one; 0 except for a resync. */
uint64_t secmap_event_lost(const struct secmap_event *event);
/*
 * Name and state always; sections, regions and build-id with MODULE_NEW.
 * NULL for SECMAP_EVENT_RESYNC.
 */
const struct secmap_module *secmap_event_module(const struct secmap_event *event);
/* SECMAP_EVENT_RESYNC: every module after the loss; owned by @event. */
const struct secmap_snapshot *secmap_event_snapshot(const struct secmap_event *event);

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

uint32_t secmap_module_state(const struct secmap_module *module);	/* 0: not reported */
uint64_t secmap_module_taint(const struct secmap_module *module);
/* Build-id length (0: none); *id points into the module. */
size_t secmap_module_build_id(const struct secmap_module *module, const uint8_t **id);
size_t secmap_module_region_count(const struct secmap_module *module);
const struct secmap_region *secmap_module_region(const struct secmap_module *module,
						 size_t index);

const char *secmap_section_name(const struct secmap_section *section);
uint64_t secmap_section_addr(const struct secmap_section *section);
uint32_t secmap_section_flags(const struct secmap_section *section);	/* SECMAP_SECTION_F_* */
/* enum secmap_region_type of the region holding the section, or -1. */
int secmap_section_region(const struct secmap_section *section);

uint32_t secmap_region_type(const struct secmap_region *region);
uint64_t secmap_region_base(const struct secmap_region *region);
uint64_t secmap_region_size(const struct secmap_region *region);
/* "text", "data", "rodata", "ro_after_init", "init_text", ..., "percpu"; NULL if unknown. */
const char *secmap_region_type_name(uint32_t type);
/* "coming", "live", "going"; NULL if unknown. */
const char *secmap_module_state_name(uint32_t state);

/*
 * A snapshot from sysfs instead of netlink, for when the secmap module is
 * not loaded: /proc/modules for names and states, /sys/module/NAME/sections
 * for addresses, /sys/module/NAME/notes for build-ids, /sys/module/NAME/taint.
 * No regions; sections have no flags. @root is prepended to both paths
 * (NULL or "" for the live system), so tests can use a fake tree.
 * Modules unloaded during the walk are left out; one whose directory has
 * no sections/ (kernel without CONFIG_KALLSYMS) is kept, with no sections.
 * -EPERM: every address reads 0 (kptr_restrict, no CAP_SYSLOG); -EACCES
 * (or -EPERM) when sections/ cannot be read; -EPROTO: malformed
 * /proc/modules line, address text or build-id note; -ENOENT: no
 * /proc/modules.
 */
int secmap_snapshot_from_sysfs(const char *root, struct secmap_snapshot **snapshot);

/*
 * Module files. secmap_ko_find() looks for the .ko of module @name ('-' and
 * '_' alike) and returns a malloc()ed path: first in opts->paths (files, or
 * directories searched recursively),
 * then by build-id in perf's cache (BUILDID_CACHE/.build-id/xx/rest/...),
 * in debuginfo trees (DEBUG_ROOT/.build-id/xx/rest.debug and
 * DEBUG_ROOT/lib/modules/RELEASE/...), then through
 * MODULES_ROOT/RELEASE/modules.dep. -ENOENT if nowhere.
 */
struct secmap_ko_search {
	const char *release;		/* NULL: uname -r */
	const char *const *paths;	/* NULL-terminated, searched first; may be NULL */
	const char *modules_root;	/* NULL: /lib/modules */
	const char *debug_root;		/* NULL: /usr/lib/debug */
	const char *buildid_cache;	/* NULL: $HOME/.debug */
};
int secmap_ko_find(const struct secmap_ko_search *opts, const char *name,
		   const uint8_t *build_id, size_t build_id_len, char **path);

/*
 * For many lookups (one per loaded module): an index of the places
 * secmap_ko_find() searches, from a copy of @opts. Directories are walked
 * and modules.dep read once, on the first lookup that reaches them; files
 * added to them later are not seen. By build-id lookups still go to the
 * file system each time. secmap_ko_index_find() returns what
 * secmap_ko_find() would, in the same order of places. Not for concurrent
 * use from several threads.
 */
struct secmap_ko_index;
int secmap_ko_index_new(const struct secmap_ko_search *opts, struct secmap_ko_index **index);
void secmap_ko_index_free(struct secmap_ko_index *index);
int secmap_ko_index_find(struct secmap_ko_index *index, const char *name,
			 const uint8_t *build_id, size_t build_id_len, char **path);

struct secmap_ko;	/* an opened module file: decompressed, parsed with libelf */
struct secmap_ko_section {
	uint64_t size;		/* sh_size */
	uint64_t offset;	/* sh_offset in the decompressed ELF (perf's pgoff) */
	uint64_t flags;		/* sh_flags: SHF_ALLOC, SHF_WRITE, SHF_EXECINSTR... */
	size_t nr_symbols;	/* STT_FUNC/STT_OBJECT symbols defined in it */
};
/*
 * Open @path (.ko, .ko.xz, .ko.zst, .ko.gz; detected by magic, not name).
 * -ENOENT, -EACCES; -EINVAL: not a relocatable ELF or corrupt/truncated;
 * -ENOTSUP: compressed in a format not supported.
 */
int secmap_ko_open(const char *path, struct secmap_ko **ko);
void secmap_ko_close(struct secmap_ko *ko);
/* Build-id length (0: none); *id points into @ko. */
size_t secmap_ko_build_id(const struct secmap_ko *ko, const uint8_t **id);
/* -ENOENT if the file has no section @name. */
int secmap_ko_section(const struct secmap_ko *ko, const char *name,
		      struct secmap_ko_section *section);

/* A static string describing a negative return value of this library. */
const char *secmap_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* SECMAP_H */
