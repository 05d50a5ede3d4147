// SPDX-License-Identifier: GPL-2.0
/*
 * secmap: expose where the kernel placed each section of every loaded
 * module, with load/live/gone events, over the "secmap" generic netlink
 * family.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "internal.h"

static int __init secmap_init(void)
{
	unsigned int nr_entries, nr_sections;
	size_t bytes;
	int ret;

	/* Track first, so the family never answers from an empty registry. */
	ret = secmap_tracking_init();
	if (ret)
		return ret;

	/* Follow socket releases before any socket can subscribe. */
	ret = secmap_subscribers_init();
	if (ret)
		goto err_tracking;
	/* On before anyone can subscribe: nobody is told of a number never sent. */
	secmap_events_enable(true);
	ret = secmap_netlink_init();
	if (ret)
		goto err_subscribers;

	bytes = secmap_registry_memory(&nr_entries, &nr_sections);
	pr_info("tracking %u modules, %u sections in %zu bytes\n", nr_entries, nr_sections,
		bytes);
	return 0;

err_subscribers:
	secmap_events_enable(false);
	secmap_subscribers_exit();
err_tracking:
	secmap_tracking_exit();
	secmap_registry_clear();
	secmap_journal_clear();
	return ret;
}

static void __exit secmap_exit(void)
{
	/* Reverse order: no events once the family is gone, no hooks after that. */
	secmap_events_enable(false);
	secmap_tracking_exit();
	secmap_netlink_exit();
	secmap_subscribers_exit();
	secmap_registry_clear();
	secmap_journal_clear();
}

module_init(secmap_init);
module_exit(secmap_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Section load addresses of kernel modules over generic netlink");
MODULE_AUTHOR("secmap developers");
