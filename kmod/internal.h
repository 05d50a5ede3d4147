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

/**
 * struct secmap_section - one loaded section of a module
 * @name: ELF section name, points into the owning entry's allocation
 * @addr: kernel virtual address of the section
 */
struct secmap_section {
	const char *name;
	unsigned long addr;
};

/**
 * struct secmap_entry - what secmap knows about one loaded module
 * @node: link in the registry list
 * @ref: held by the registry while listed and by readers outside the lock
 * @mod: identity of the module; compared, never dereferenced, since the
 *	 module may be gone by the time a reader looks at the entry
 * @name: module name
 * @nr_sections: number of elements in @sections
 * @sections: section table, followed in the same allocation by the names
 *
 * Immutable once listed, so readers holding @ref need no lock.
 */
struct secmap_entry {
	struct list_head node;
	struct kref ref;
	const struct module *mod;
	char name[MODULE_NAME_LEN];
	unsigned int nr_sections;
	struct secmap_section sections[];
};

/* sections.c: the only code that reads the kernel's private section table */
struct secmap_entry *secmap_entry_from_module(const struct module *mod, gfp_t gfp);

/* registry.c */
int secmap_registry_init(void);
void secmap_registry_exit(void);
void secmap_entry_put(struct secmap_entry *entry);
struct secmap_entry *secmap_registry_get(const char *name);
/* Called under the registry lock for each entry; non-zero stops the walk. */
typedef int (*secmap_entry_visit_t)(const struct secmap_entry *entry, void *arg);
int secmap_registry_walk(unsigned long *pos, secmap_entry_visit_t fill, void *arg);

/* netlink.c */
int secmap_netlink_init(void);
void secmap_netlink_exit(void);
bool secmap_netlink_may_read(const struct sk_buff *skb);
extern struct genl_family secmap_genl_family;

/* module_get.c: SECMAP_CMD_MODULE_GET */
extern const struct nla_policy secmap_module_get_policy[SECMAP_A_MODULE_NAME + 1];
int secmap_module_get_doit(struct sk_buff *skb, struct genl_info *info);
int secmap_module_get_start(struct netlink_callback *cb);
int secmap_module_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* SECMAP_INTERNAL_H */
