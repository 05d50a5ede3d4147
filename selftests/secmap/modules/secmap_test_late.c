// SPDX-License-Identifier: GPL-2.0
/*
 * A module the selftests load and unload while secmap runs, to check that
 * the notifier keeps the registry current.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static int secmap_late_value = 7;

static int secmap_late_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(secmap_late_value));
}

static const struct kernel_param_ops secmap_late_ops = {
	.get = secmap_late_get,
};
module_param_cb(value, &secmap_late_ops, NULL, 0444);

static int __init secmap_late_init(void)
{
	WRITE_ONCE(secmap_late_value, 8);
	return 0;
}

static void __exit secmap_late_exit(void)
{
	WRITE_ONCE(secmap_late_value, 0);
}

module_init(secmap_late_init);
module_exit(secmap_late_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("secmap selftest: loaded after secmap");
