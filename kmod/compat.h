/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version difference secmap.ko depends on, in one place.
 * Each shim names the kernel change it follows.
 */
#ifndef SECMAP_COMPAT_H
#define SECMAP_COMPAT_H

#include <linux/module.h>
#include <linux/sysfs.h>
#include <linux/version.h>

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

#endif /* SECMAP_COMPAT_H */
