// SPDX-License-Identifier: GPL-2.0
/*
 * A module that burns CPU in its init function, so that a recording made
 * while it loads has samples inside .init.text: they must fall within the
 * init mapping's lifetime. Loaded, unloaded and loaded again by the
 * recording tests.
 */
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static unsigned int burn_ms = 300;
module_param(burn_ms, uint, 0444);
MODULE_PARM_DESC(burn_ms, "milliseconds to spin in init");

static unsigned long secmap_burn_sink;

static noinline void __init secmap_burn_init_spin(unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (time_before(jiffies, end))
		WRITE_ONCE(secmap_burn_sink, READ_ONCE(secmap_burn_sink) + 1);
}

static int __init secmap_burn_init(void)
{
	secmap_burn_init_spin(burn_ms);
	return 0;
}

static void __exit secmap_burn_exit(void)
{
	WRITE_ONCE(secmap_burn_sink, 0);
}

module_init(secmap_burn_init);
module_exit(secmap_burn_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("secmap selftest: burns CPU in init");
