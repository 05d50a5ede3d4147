// SPDX-License-Identifier: GPL-2.0
/*
 * Records, from its init function, that function's address and the
 * local_clock() at that moment, so the selftests can check that
 * MODULE_NEW came before init ran and that .init.text covers init.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>

static unsigned long init_addr;
module_param(init_addr, ulong, 0400);
MODULE_PARM_DESC(init_addr, "address of this module's init function");

static unsigned long long init_clock_ns;
module_param(init_clock_ns, ullong, 0400);
MODULE_PARM_DESC(init_clock_ns, "local_clock() when init ran");

static int __init secmap_stamp_init(void)
{
	init_clock_ns = local_clock();
	init_addr = (unsigned long)secmap_stamp_init;
	return 0;
}

static void __exit secmap_stamp_exit(void)
{
}

module_init(secmap_stamp_init);
module_exit(secmap_stamp_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("secmap selftest: stamps its init");
