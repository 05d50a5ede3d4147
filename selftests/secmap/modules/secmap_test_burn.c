// SPDX-License-Identifier: GPL-2.0
/*
 * A module that burns CPU in known functions, one in each executable
 * section the kernel keeps for a module, so that the samples a recording
 * takes have a known answer: .init.text while it loads (burn_ms), .exit.text
 * while it unloads (burn_exit_ms), and .text, .text.unlikely and
 * .noinstr.text, one after the other, each time a number of milliseconds is
 * written to /sys/module/secmap_test_burn/parameters/burn. The spinning
 * loops only read jiffies: nothing in them may be instrumented or call out.
 */
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static unsigned int burn_ms = 300;
module_param(burn_ms, uint, 0444);
MODULE_PARM_DESC(burn_ms, "milliseconds to spin in init");

static unsigned int burn_exit_ms;
module_param(burn_exit_ms, uint, 0444);
MODULE_PARM_DESC(burn_exit_ms, "milliseconds to spin in exit");

static unsigned long secmap_burn_sink;

static noinline void secmap_burn_text(unsigned long end)
{
	while (time_before(READ_ONCE(jiffies), end))
		WRITE_ONCE(secmap_burn_sink, READ_ONCE(secmap_burn_sink) + 1);
}

static noinline __section(".text.unlikely") void secmap_burn_unlikely(unsigned long end)
{
	while (time_before(READ_ONCE(jiffies), end))
		WRITE_ONCE(secmap_burn_sink, READ_ONCE(secmap_burn_sink) + 2);
}

static noinstr void secmap_burn_noinstr(unsigned long end)
{
	while (time_before(READ_ONCE(jiffies), end))
		WRITE_ONCE(secmap_burn_sink, READ_ONCE(secmap_burn_sink) + 3);
}

static int secmap_burn_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret = kstrtouint(val, 0, &ms);

	if (ret)
		return ret;
	secmap_burn_text(jiffies + msecs_to_jiffies(ms));
	secmap_burn_unlikely(jiffies + msecs_to_jiffies(ms));
	secmap_burn_noinstr(jiffies + msecs_to_jiffies(ms));
	return 0;
}

static const struct kernel_param_ops secmap_burn_ops = {
	.set = secmap_burn_set,
};

module_param_cb(burn, &secmap_burn_ops, NULL, 0200);
MODULE_PARM_DESC(burn, "write N: spin N ms in .text, then .text.unlikely, then .noinstr.text");

static noinline void __init secmap_burn_init_spin(unsigned long end)
{
	while (time_before(READ_ONCE(jiffies), end))
		WRITE_ONCE(secmap_burn_sink, READ_ONCE(secmap_burn_sink) + 4);
}

static noinline void __exit secmap_burn_exit_spin(unsigned long end)
{
	while (time_before(READ_ONCE(jiffies), end))
		WRITE_ONCE(secmap_burn_sink, READ_ONCE(secmap_burn_sink) + 5);
}

static int __init secmap_burn_init(void)
{
	secmap_burn_init_spin(jiffies + msecs_to_jiffies(burn_ms));
	return 0;
}

static void __exit secmap_burn_exit(void)
{
	secmap_burn_exit_spin(jiffies + msecs_to_jiffies(burn_exit_ms));
}

module_init(secmap_burn_init);
module_exit(secmap_burn_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("secmap selftest: burns CPU in a known function of each executable section");
