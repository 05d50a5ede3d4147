/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libsecmap, the running kernel: secmap.ko's netlink family (client, dumps,
 * events, snapshots and what they hold), the sysfs fallback, and the
 * kernel's identity and symbols.
 * Part of secmap.h: include <secmap/secmap.h>, not this file.
 */
#ifndef SECMAP_KERNEL_H
#define SECMAP_KERNEL_H

#include "secmap/common.h"

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
	size_t sz;		/* the caller's sizeof; filled up to it */
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
	/*
	 * local_clock() (perf's default clock) and CLOCK_MONOTONIC when the
	 * reply was made; 0 from a secmap module too old to send them.
	 */
	uint64_t time_local_ns;
	uint64_t time_mono_ns;
};

/*
 * Open a client. -ENOENT: the secmap family is not registered (module not
 * loaded); -EPERM/-EACCES: not allowed to open netlink sockets.
 */
int secmap_client_open(struct secmap_client **client);
void secmap_client_close(struct secmap_client *client);

/*
 * Dump all modules. -EPERM: the caller lacks the capability the kernel
 * asks for; -EPROTO: the kernel sent a message libsecmap cannot parse;
 * -ENOENT: the secmap module went away since the client was opened.
 */
int secmap_client_dump(struct secmap_client *client, struct secmap_snapshot **snapshot);
/*
 * Dumps flagged NLM_F_DUMP_INTR (modules changed mid-dump) are retried;
 * after this many in a row secmap_client_dump() gives up with -EBUSY.
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
 * sequence numbers jump), the library first asks the kernel's event
 * journal for them: if it still holds every one, they are returned in
 * order as if never lost (secmap_client_nr_replayed() counts them). Else
 * (the journal overflowed, or a secmap.ko without one) it re-dumps and
 * returns one event of type SECMAP_EVENT_RESYNC instead:
 * secmap_event_snapshot() holds every module as it is now,
 * secmap_event_lost() how many events are gone for good (those before the
 * journal's oldest) or, without a journal, how many it replaces; its times
 * are the snapshot's.
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
/* How many lost events the kernel's journal gave back, since open. */
uint64_t secmap_client_nr_replayed(const struct secmap_client *client);
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

/*
 * Watch secmap.ko being unloaded and loaded again (the generic netlink
 * controller's notifications; needs no privilege). A subscription ends with
 * the registration of the family it was made to: on a new registration,
 * open a new client, subscribe and dump. Poll secmap_family_watch_fd();
 * secmap_family_watch_next() returns 1 (the family was registered), 0 (it
 * went away), -EAGAIN (nothing more pending) or -ENOBUFS (notifications
 * were lost: check with secmap_client_open()).
 */
struct secmap_family_watch;
int secmap_family_watch_open(struct secmap_family_watch **watch);
int secmap_family_watch_fd(const struct secmap_family_watch *watch);
int secmap_family_watch_next(struct secmap_family_watch *watch);
void secmap_family_watch_close(struct secmap_family_watch *watch);

/*
 * Module loads and unloads without secmap.ko, from the kernel's uevents
 * (NETLINK_KOBJECT_UEVENT, the kernel's group) and sysfs, as events of
 * secmap_client's types. The kernel announces a module (KOBJ_ADD) once
 * its init has finished: its NEW event holds the sections
 * /sys/module/NAME/sections shows, read then, the init ones flagged
 * SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED. Where perf's
 * module:module_load tracepoint may be read as well
 * (secmap_uevent_watch_load_times() is 1; -errno says why not: tracefs,
 * a perf event on every CPU), a load it saw is a NEW event at the time of
 * its init_module() or finit_module() call where syscall tracepoints
 * tell it, else at the tracepoint's, just before its init ran (never
 * before an unload the watch took, whose memory it may have reused).
 * KOBJ_REMOVE is a GONE
 * event with the build-id last seen for that name. seq is the uevent's
 * SEQNUM. Times are perf's clock (local_clock(), a perf.data's) read
 * when the uevent is taken, if this process may open a perf event
 * (secmap_uevent_watch_exact_times()), else CLOCK_MONOTONIC's for both.
 * A receive buffer overrun returns a SECMAP_EVENT_RESYNC of a sysfs
 * snapshot; a module gone before it could be read is left out and
 * counted (secmap_uevent_watch_missed()).
 * secmap_uevent_watch_snapshot(): sysfs now, stamped likewise, the init
 * sections of live modules flagged freed; take it after open(), so that
 * the events continue it (a module in both is the same load).
 * @root is prepended to sysfs's paths (NULL: the live system).
 * Needs CAP_SYSLOG for the addresses; next() returns -EAGAIN when nothing
 * is queued.
 */
struct secmap_uevent_watch;
int secmap_uevent_watch_open(const char *root, struct secmap_uevent_watch **watch);
int secmap_uevent_watch_fd(const struct secmap_uevent_watch *watch);
int secmap_uevent_watch_next(struct secmap_uevent_watch *watch, struct secmap_event **event);
int secmap_uevent_watch_snapshot(struct secmap_uevent_watch *watch,
				 struct secmap_snapshot **snapshot);
int secmap_uevent_watch_exact_times(const struct secmap_uevent_watch *watch);
int secmap_uevent_watch_load_times(const struct secmap_uevent_watch *watch);
uint64_t secmap_uevent_watch_missed(const struct secmap_uevent_watch *watch);
void secmap_uevent_watch_close(struct secmap_uevent_watch *watch);

void secmap_snapshot_free(struct secmap_snapshot *snapshot);
/*
 * When the snapshot held, in local_clock() (perf's default clock) and
 * CLOCK_MONOTONIC time: known for a dump made once subscribed (and so for
 * a resync's snapshot), 0 otherwise.
 */
uint64_t secmap_snapshot_time_local_ns(const struct secmap_snapshot *snapshot);
uint64_t secmap_snapshot_time_mono_ns(const struct secmap_snapshot *snapshot);
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
 * No regions. A live module's init part (the .init* sections, and the
 * full .symtab and .strtab, which the kernel lays out there) is flagged
 * SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED: sysfs still shows where
 * it was; other sections have no flags. @root is prepended to both paths
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
 * The running kernel, for a recording's SECMAP_REC_KERNEL and KALLSYMS
 * records: release (uname -r), build-id (/sys/kernel/notes), the runtime
 * address of _text (else _stext) and the core kernel's lines of
 * /proc/kallsyms (module symbols left out). Addresses need what
 * /proc/kallsyms asks (CAP_SYSLOG, kptr_restrict): where they read as 0,
 * @have_ref_addr is false and @kallsyms NULL. @root is prepended to the
 * paths (NULL: the live system). 0 or -errno (-EPROTO: malformed notes);
 * a missing notes file or kallsyms only leaves those parts out.
 */
struct secmap_kernel_info {
	size_t sz;			/* the caller's sizeof; filled up to it */
	char release[65];
	uint8_t build_id[64];
	size_t build_id_len;		/* 0: unknown */
	char ref_name[8];		/* "_text" or "_stext" */
	uint64_t ref_addr;
	int have_ref_addr;
	char *kallsyms;			/* malloc()ed, @kallsyms_len bytes */
	size_t kallsyms_len;
};
/* Only the identity: /proc/kallsyms is read up to the reference symbol. */
#define SECMAP_KERNEL_INFO_NO_SYMBOLS	(1u << 0)
int secmap_kernel_info_read(const char *root, unsigned int flags, struct secmap_kernel_info *info);
/*
 * Whether @text, @len bytes of a copy of /proc/kallsyms, is this boot's:
 * its reference symbol at @info->ref_addr. perf's build-id cache keeps
 * one per kernel build (~/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms), and
 * reading it spares the kernel formatting the symbols again. Then
 * *@core_len is the length of its core's part (the lines before the
 * first module's) and 0 is returned. -ESTALE: another boot's copy
 * (KASLR), or no reference address (hidden, or none in @info); -EINVAL.
 */
int secmap_kernel_info_match_kallsyms(const struct secmap_kernel_info *info, const char *text,
				      size_t len, size_t *core_len);
/* Frees what secmap_kernel_info_read() allocated. */
void secmap_kernel_info_release(struct secmap_kernel_info *info);

#ifdef __cplusplus
}
#endif

#endif /* SECMAP_KERNEL_H */
