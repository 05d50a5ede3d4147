// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose init fails: secmap must report it loading, then gone,
 * and keep nothing of it.
 */
#include <linux/init.h>
#include <linux/module.h>

static int __init secmap_fail_init(void)
{
	return -ENODEV;
}

module_init(secmap_fail_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("secmap selftest: init fails with -ENODEV");
