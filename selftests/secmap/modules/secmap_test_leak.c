// SPDX-License-Identifier: GPL-2.0
/*
 * Leaks one allocation from init, on purpose: the debug kernel's VM lane
 * loads it first and expects kmemleak to report it, so that a lane whose
 * kmemleak finds nothing cannot pass for a clean one.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>

/* The only reference, dropped once written: what kmemleak looks for. */
static void *secmap_leak_ptr;

/*
 * Not __init: the report's backtrace names it only while its code is there,
 * and .init.text is freed once init returns.
 */
static noinline void secmap_leak_alloc(void)
{
	WRITE_ONCE(secmap_leak_ptr, kzalloc(96, GFP_KERNEL));
	WRITE_ONCE(secmap_leak_ptr, NULL);
}

static int __init secmap_leak_init(void)
{
	secmap_leak_alloc();
	return 0;
}

static void __exit secmap_leak_exit(void)
{
}

module_init(secmap_leak_init);
module_exit(secmap_leak_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("secmap selftest: leaks 96 bytes so the lane can see kmemleak work");
