/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the parts of secmap.ko; not an interface. */
#ifndef SECMAP_INTERNAL_H
#define SECMAP_INTERNAL_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/types.h>
#include <net/genetlink.h>
#include <linux/secmap.h>

#define SECMAP_NR_REGION_TYPES	(SECMAP_REGION_PERCPU + 1)

/* Init regions are freed once the module's init returned. */
static inline bool secmap_region_is_init(u8 type)
{
	return type == SECMAP_REGION_INIT_TEXT || type == SECMAP_REGION_INIT_DATA ||
	       type == SECMAP_REGION_INIT_RODATA;
}

/* SHA-1, what kbuild's --build-id produces; longer notes are not reported. */
#define SECMAP_BUILD_ID_MAX	20

/**
 * struct secmap_region - a memory region of a module
 * @type: &enum secmap_region_type
 * @base: start address
 * @size: size in bytes
 */
struct secmap_region {
	u8 type;
	unsigned long base;
	unsigned long size;
};

/**
 * struct secmap_section - one loaded section of a module
 * @name: ELF section name, points into the owning entry's allocation
 * @addr: kernel virtual address of the section
 * @region: index into the entry's regions, or -1 if none contains it
 * @init: an init section, freed once the module is live
 */
struct secmap_section {
	const char *name;
	unsigned long addr;
	s8 region;
	bool init;
};

/**
 * struct secmap_entry - what secmap knows about one loaded module
 * @node: link in the registry list
 * @ref: held by the registry while listed and by readers outside the lock
 * @mod: identity of the module; compared, never dereferenced, since the
 *	 module may be gone by the time a reader looks at the entry
 * @state: &enum secmap_module_state; the only field that changes once
 *	   listed, under the registry lock
 * @name: module name
 * @taints: the module's taint bits when captured
 * @build_id: GNU build-id, @build_id_len bytes (0: none)
 * @build_id_len: length of @build_id
 * @coming_local_ns: local_clock() when the module became COMING (before its
 *	parameters are parsed), the time its MODULE_NEW carries; 0: unknown
 * @coming_mono_ns: CLOCK_MONOTONIC at the same moment
 * @nr_regions: number of elements in @regions
 * @regions: non-empty memory regions, at most one per type
 * @names_len: bytes of the section names, each NUL-terminated, that follow
 *	@sections in the same allocation, in the same order
 * @nr_sections: number of elements in @sections
 * @sections: section table, followed in the same allocation by the names
 */
struct secmap_entry {
	struct list_head node;
	struct kref ref;
	const struct module *mod;
	u8 state;
	char name[MODULE_NAME_LEN];
	unsigned long taints;
	u8 build_id[SECMAP_BUILD_ID_MAX];
	u8 build_id_len;
	u64 coming_local_ns;
	u64 coming_mono_ns;
	u8 nr_regions;
	/*
	 * Before 6.4 the two layouts split into up to 8 parts, and the
	 * per-CPU area comes on top; capture.c checks the bound at build time.
	 */
	struct secmap_region regions[SECMAP_NR_REGION_TYPES + 1];
	size_t names_len;
	unsigned int nr_sections;
	struct secmap_section sections[];
};

/* capture.c: the only code that reads the kernel's private module layout */
struct secmap_entry *secmap_capture(const struct module *mod, u8 state, gfp_t gfp);

/* registry.c */
void secmap_entry_put(struct secmap_entry *entry);
void secmap_registry_lock(void);
void secmap_registry_unlock(void);
void secmap_registry_assert_held(void);
u64 secmap_registry_generation_locked(void);
bool secmap_registry_add_locked(struct secmap_entry *entry);
struct secmap_entry *secmap_registry_find_locked(const struct module *mod);
void secmap_registry_set_state_locked(struct secmap_entry *entry, u8 state);
void secmap_registry_del_locked(struct secmap_entry *entry);
struct secmap_entry *secmap_registry_get(const char *name);
/* Called under the registry lock for each entry; non-zero stops the walk. */
typedef int (*secmap_entry_visit_t)(const struct secmap_entry *entry, void *arg);
int secmap_registry_walk(unsigned long *pos, u64 *gen, secmap_entry_visit_t visit, void *arg);
void secmap_registry_clear(void);
size_t secmap_registry_memory(unsigned int *nr_entries, unsigned int *nr_sections);

/* tracking.c: keeps the registry current and raises events */
int secmap_tracking_init(void);
void secmap_tracking_exit(void);
enum secmap_hook secmap_tracking_hook(void);

/* module_msg.c: the module message shared by GET replies and events */
size_t secmap_module_msg_size(const struct secmap_entry *entry, bool table);
size_t secmap_registry_max_msg_size(bool table);
void secmap_dump_room(struct netlink_callback *cb, size_t msg_len);
int secmap_module_msg_fill(struct sk_buff *skb, const struct secmap_entry *entry,
			   bool show_addrs, bool table);

/* events.c */
struct sk_buff *secmap_event_alloc(u8 cmd, const struct secmap_entry *entry, gfp_t gfp);
void secmap_event_send_locked(struct sk_buff *skb, u8 cmd, const struct secmap_entry *entry);
void secmap_events_enable(bool on);
u64 secmap_events_last_seq_locked(void);

/* netlink.c */
int secmap_netlink_init(void);
void secmap_netlink_exit(void);
int secmap_netlink_check_read(const struct sk_buff *skb, const struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack);
int secmap_netlink_check_version(const struct nlmsghdr *nlh, struct netlink_ext_ack *extack);
bool secmap_addrs_hidden(void);
bool secmap_addrs_hidden_from_all(void);
extern struct genl_family secmap_genl_family;
#define SECMAP_MCGRP_EVENTS_ID	0

/* module_get.c: SECMAP_CMD_MODULE_GET */
extern const struct nla_policy secmap_module_get_policy[SECMAP_A_MODULE_COMPACT + 1];
int secmap_module_get_doit(struct sk_buff *skb, struct genl_info *info);
int secmap_module_get_start(struct netlink_callback *cb);
int secmap_module_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* subscribe.c: SECMAP_CMD_EVENTS_SUBSCRIBE and event delivery */
extern const struct nla_policy secmap_events_subscribe_policy[SECMAP_A_MODULE_MAX + 1];
int secmap_events_subscribe_doit(struct sk_buff *skb, struct genl_info *info);
bool secmap_subscribers_any(void);
int secmap_subscribers_skip(struct sock *dsk, struct sk_buff *skb, void *data);
void secmap_subscribers_unicast(struct sk_buff *skb);
int secmap_subscribers_init(void);
void secmap_subscribers_exit(void);

/* journal.c: the event journal and SECMAP_CMD_EVENTS_REPLAY */
extern const struct nla_policy secmap_events_replay_policy[SECMAP_A_MODULE_REPLAY_FROM + 1];
void secmap_journal_add_locked(u64 seq, const struct sk_buff *skb);
void secmap_journal_clear(void);
int secmap_events_replay_start(struct netlink_callback *cb);
int secmap_events_replay_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* info.c: SECMAP_CMD_INFO_GET */
extern const struct nla_policy secmap_info_get_policy[SECMAP_A_INFO_MAX + 1];
int secmap_info_get_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* SECMAP_INTERNAL_H */
