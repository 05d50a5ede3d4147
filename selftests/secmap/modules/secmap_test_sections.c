// SPDX-License-Identifier: GPL-2.0
/*
 * A module with one of every kind of section secmap must report: .text,
 * .text.unlikely, .init.text, .exit.text, .data, .rodata, a custom one and
 * per-CPU data.
 * Loaded before secmap in the VM, so it is found by start-up enumeration.
 */
#include <linux/compiler.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>

/* A custom allocated section, as drivers create for tables. */
static int secmap_custom_marker __section("secmap_custom") __used = 0x5ec;
static int secmap_data_marker = 1;
static const char secmap_rodata_marker[] = "secmap rodata";
static DEFINE_PER_CPU(int, secmap_percpu_marker);

/* No __cold: gcc would then treat every caller as cold and move it too. */
static noinline __section(".text.unlikely") int secmap_test_cold(int x)
{
	return x * 3 + READ_ONCE(secmap_data_marker);
}

/*
 * Reached through the parameter's ops, not only from init: gcc moves
 * functions called solely from __init code out of .text.
 */
static int secmap_test_marker_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d %c\n", secmap_test_cold(secmap_custom_marker),
			  secmap_rodata_marker[0]);
}

static const struct kernel_param_ops secmap_test_marker_ops = {
	.get = secmap_test_marker_get,
};
module_param_cb(marker, &secmap_test_marker_ops, NULL, 0444);

static int __init secmap_test_init(void)
{
	WRITE_ONCE(secmap_data_marker, 2);
	this_cpu_write(secmap_percpu_marker, 1);
	return 0;
}

static void __exit secmap_test_exit(void)
{
	WRITE_ONCE(secmap_data_marker, 0);
}

module_init(secmap_test_init);
module_exit(secmap_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("secmap selftest: one of every section kind");
