// SPDX-License-Identifier: GPL-2.0
/*
 * A module of 600 sections with long names, as a driver with many linker
 * tables might have: its load event is larger than a reader's first
 * receive buffer (32 KiB), so it reaches the reader cut, and must come
 * back whole from the event journal.
 */
#include <linux/init.h>
#include <linux/module.h>

/*
 * 600 allocated sections, named by the assembler's counter (.altmacro's
 * %expr): secmap_many_tables_with_a_rather_long_section_name_0 to _599.
 */
asm(".altmacro\n"
	".macro secmap_many_section n\n"
	"\t.pushsection secmap_many_tables_with_a_rather_long_section_name_\\n, \"a\"\n"
	"\t.byte 1\n"
	"\t.popsection\n"
	".endm\n"
	".set secmap_many_i, 0\n"
	".rept 600\n"
	"\tsecmap_many_section %secmap_many_i\n"
	"\t.set secmap_many_i, secmap_many_i + 1\n"
	".endr\n"
	".noaltmacro\n");

static int __init secmap_many_init(void)
{
	return 0;
}

static void __exit secmap_many_exit(void)
{
}

module_init(secmap_many_init);
module_exit(secmap_many_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("secmap selftest: a load event larger than the first receive buffer");
