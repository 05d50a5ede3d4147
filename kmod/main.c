// SPDX-License-Identifier: GPL-2.0
/*
 * secmap: expose where the kernel placed each section of every loaded
 * module, over the "secmap" generic netlink family.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "internal.h"

static int __init secmap_init(void)
{
	int ret;

	/* Track first, so the family never answers from an empty registry. */
	ret = secmap_registry_init();
	if (ret)
		return ret;

	ret = secmap_netlink_init();
	if (ret) {
		secmap_registry_exit();
		return ret;
	}
	return 0;
}

static void __exit secmap_exit(void)
{
	secmap_netlink_exit();
	secmap_registry_exit();
}

module_init(secmap_init);
module_exit(secmap_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Section load addresses of kernel modules over generic netlink");
MODULE_AUTHOR("secmap developers");
