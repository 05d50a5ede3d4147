// SPDX-License-Identifier: GPL-2.0
/*
 * Template for make bench: the lane clones this .ko into many modules by
 * rewriting the fixed-length name "secmap_bench_0000" in place, which
 * moves no ELF offset. A few sections, like a small driver.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static int bench_value = 1;

static int bench_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(bench_value));
}

static const struct kernel_param_ops bench_ops = {
	.get = bench_get,
};
module_param_cb(value, &bench_ops, NULL, 0444);

static int __init bench_init(void)
{
	WRITE_ONCE(bench_value, 2);
	return 0;
}

static void __exit bench_exit(void)
{
	WRITE_ONCE(bench_value, 0);
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("secmap benchmark filler module");
