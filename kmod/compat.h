/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference secmap.ko depends on, in one place.
 * Each shim names the kernel change it follows.
 */
#ifndef SECMAP_COMPAT_H
#define SECMAP_COMPAT_H

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/sysfs.h>
#include <linux/version.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "internal.h"

/*
 * mod->sect_attrs is private to kernel/module/sysfs.c, but its first member
 * has always been the "sections" attribute group, whose bin_attrs are the
 * files of /sys/module/NAME/sections.
 */
static inline const struct attribute_group *secmap_compat_sect_group(const struct module *mod)
{
	return (const struct attribute_group *)mod->sect_attrs;
}

#if KERNEL_VERSION(6, 14, 0) > LINUX_VERSION_CODE
/* Until 6.14 each bin_attribute is followed by its section's address. */
struct secmap_compat_sect_attr {
	struct bin_attribute battr;
	unsigned long address;
};

static inline unsigned long secmap_compat_sect_addr(const struct bin_attribute *battr)
{
	return container_of(battr, const struct secmap_compat_sect_attr, battr)->address;
}
#else
/* 6.14 "module: sysfs: Simplify section attribute allocation": address in ->private. */
static inline unsigned long secmap_compat_sect_addr(const struct bin_attribute *battr)
{
	return (unsigned long)battr->private;
}
#endif

#if KERNEL_VERSION(6, 4, 0) <= LINUX_VERSION_CODE
/* 6.4 "module: replace module_layout with module_memory": one mem[] per type. */
#define SECMAP_COMPAT_MAX_REGIONS	MOD_MEM_NUM_TYPES
static inline unsigned int secmap_compat_regions(const struct module *mod,
						 struct secmap_region *out)
{
	static const u8 types[MOD_MEM_NUM_TYPES] = {
		[MOD_TEXT] = SECMAP_REGION_TEXT,
		[MOD_DATA] = SECMAP_REGION_DATA,
		[MOD_RODATA] = SECMAP_REGION_RODATA,
		[MOD_RO_AFTER_INIT] = SECMAP_REGION_RO_AFTER_INIT,
		[MOD_INIT_TEXT] = SECMAP_REGION_INIT_TEXT,
		[MOD_INIT_DATA] = SECMAP_REGION_INIT_DATA,
		[MOD_INIT_RODATA] = SECMAP_REGION_INIT_RODATA,
	};
	unsigned int type, n = 0;

	for (type = 0; type < MOD_MEM_NUM_TYPES; type++) {
		if (!mod->mem[type].size)
			continue;
		out[n].type = types[type];
		out[n].base = (unsigned long)mod->mem[type].base;
		out[n].size = mod->mem[type].size;
		n++;
	}
	return n;
}
#else
/* Before 6.4 a layout is text, rodata, ro_after_init, data, split by sizes. */
#define SECMAP_COMPAT_MAX_REGIONS	(2 * 4)
static inline unsigned int secmap_compat_split_layout(const struct module_layout *layout,
						      const u8 types[4],
						      struct secmap_region *out)
{
	const unsigned int ends[4] = {
		layout->text_size, layout->ro_size, layout->ro_after_init_size, layout->size,
	};
	unsigned int i, n = 0, start = 0;

	for (i = 0; i < 4; i++) {
		if (ends[i] > start) {
			out[n].type = types[i];
			out[n].base = (unsigned long)layout->base + start;
			out[n].size = ends[i] - start;
			n++;
		}
		start = max(start, ends[i]);
	}
	return n;
}

static inline unsigned int secmap_compat_regions(const struct module *mod,
						 struct secmap_region *out)
{
	static const u8 core[4] = {
		SECMAP_REGION_TEXT, SECMAP_REGION_RODATA,
		SECMAP_REGION_RO_AFTER_INIT, SECMAP_REGION_DATA,
	};
	static const u8 init[4] = {
		SECMAP_REGION_INIT_TEXT, SECMAP_REGION_INIT_RODATA,
		SECMAP_REGION_RO_AFTER_INIT, SECMAP_REGION_INIT_DATA,
	};
	unsigned int n;

	n = secmap_compat_split_layout(&mod->core_layout, core, out);
	/* init_layout has no ro_after_init part: its ro_after_init_size == ro_size. */
	return n + secmap_compat_split_layout(&mod->init_layout, init, out + n);
}
#endif

#if KERNEL_VERSION(5, 17, 0) <= LINUX_VERSION_CODE
/* Does current have CAP_SYSLOG, asked as vsprintf's %pK asks (no audit record)? */
static inline bool secmap_compat_syslog_capable_noaudit(void)
{
	return has_capability_noaudit(current, CAP_SYSLOG);
}
#else
/*
 * 5.17 "xfs: don't generate selinux audit messages for capability testing"
 * exported has_capability_noaudit. Before it: the subjective credentials,
 * which differ only under override_creds(); marks current PF_SUPERPRIV.
 */
static inline bool secmap_compat_syslog_capable_noaudit(void)
{
	return ns_capable_noaudit(&init_user_ns, CAP_SYSLOG);
}
#endif

#if KERNEL_VERSION(6, 1, 0) > LINUX_VERSION_CODE
/*
 * 6.1 "genetlink: add helper for checking required attrs and use it in devlink";
 * before 6.1 extack cannot name a missing attribute, so say it in words.
 */
#define GENL_REQ_ATTR_CHECK(info, attr) ({				\
	struct genl_info *__info = (info);				\
	int __missing = !__info->attrs[(attr)];				\
									\
	if (__missing)							\
		GENL_SET_ERR_MSG(__info, "required attribute missing");	\
	__missing;							\
})
#endif

#if KERNEL_VERSION(6, 1, 0) <= LINUX_VERSION_CODE
/* The core checks a request's reserved header bits and flags (resv_start_op 0). */
static inline int secmap_compat_check_header(const struct nlmsghdr *nlh,
					     struct netlink_ext_ack *extack)
{
	return 0;
}
#else
/*
 * 6.1 "genetlink: start to validate reserved header bytes": before it the
 * core let both through, so refuse them here as it does since.
 */
static inline int secmap_compat_check_header(const struct nlmsghdr *nlh,
					     struct netlink_ext_ack *extack)
{
	const struct genlmsghdr *hdr = nlmsg_data(nlh);
	u16 flags = nlh->nlmsg_flags;

	if (hdr->reserved) {
		NL_SET_ERR_MSG(extack, "genlmsghdr.reserved field is not 0");
		return -EINVAL;
	}
	/* NLM_F_DUMP is two bits, only meaningful together. */
	if ((flags & NLM_F_DUMP) == NLM_F_DUMP)
		flags &= ~NLM_F_DUMP;
	if (flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO)) {
		NL_SET_ERR_MSG(extack, "ambiguous or reserved bits set in nlmsg_flags");
		return -EINVAL;
	}
	return 0;
}
#endif

#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
/* 6.6 "genetlink: add genl_info_dump()": dump attributes through a genl_info. */
static inline struct nlattr **secmap_compat_dump_attrs(struct netlink_callback *cb)
{
	return genl_info_dump(cb)->attrs;
}
#else
static inline struct nlattr **secmap_compat_dump_attrs(struct netlink_callback *cb)
{
	return genl_dumpit_info(cb)->attrs;
}
#endif

#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
/* 6.2 "netlink: add support for formatted extack messages": name the module. */
static inline void secmap_compat_err_no_module(struct netlink_ext_ack *extack,
					       const struct nlattr *attr, const char *name)
{
	NL_SET_ERR_MSG_FMT(extack, "module %s is not loaded", name);
	NL_SET_BAD_ATTR(extack, attr);
}
#else
static inline void secmap_compat_err_no_module(struct netlink_ext_ack *extack,
					       const struct nlattr *attr, const char *name)
{
	NL_SET_ERR_MSG_ATTR(extack, attr, "module is not loaded");
}
#endif

#if KERNEL_VERSION(6, 8, 0) <= LINUX_VERSION_CODE
/* 6.8 "genetlink: introduce helpers to do filtered multicast". */
static inline void secmap_compat_multicast(struct genl_family *family, struct sk_buff *skb,
					   unsigned int group)
{
	genlmsg_multicast_netns_filtered(family, &init_net, skb, 0, group, GFP_ATOMIC,
					 secmap_subscribers_skip, NULL);
}
#else
/* Without filtered multicast, the group cannot tell subscribers apart. */
static inline void secmap_compat_multicast(struct genl_family *family, struct sk_buff *skb,
					   unsigned int group)
{
	secmap_subscribers_unicast(skb);
}
#endif

#endif /* SECMAP_COMPAT_H */
