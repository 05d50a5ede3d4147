// SPDX-License-Identifier: GPL-2.0
/*
 * The "secmap" generic netlink family: registration, op table and the
 * access rule shared by every command. Commands live in one file each.
 */
#include "internal.h"

#include <linux/capability.h>

/**
 * secmap_netlink_may_read() - may the sender of @skb see module addresses?
 * @skb: the request
 *
 * Section addresses are kernel pointers. /sys/module/M/sections shows them
 * through kallsyms_show_value(), which at the default kptr_restrict=1 needs
 * CAP_SYSLOG; secmap asks for the same, in the initial user namespace.
 *
 * Return: true if the request may proceed.
 */
bool secmap_netlink_may_read(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_SYSLOG);
}

static const struct genl_ops secmap_genl_ops[] = {
	{
		.cmd		= SECMAP_CMD_MODULE_GET,
		.doit		= secmap_module_get_doit,
		.start		= secmap_module_get_start,
		.dumpit		= secmap_module_get_dumpit,
		.policy		= secmap_module_get_policy,
		.maxattr	= ARRAY_SIZE(secmap_module_get_policy) - 1,
	},
};

struct genl_family secmap_genl_family __ro_after_init = {
	.name		= SECMAP_GENL_NAME,
	.version	= SECMAP_GENL_VERSION,
	.module		= THIS_MODULE,
	.ops		= secmap_genl_ops,
	.n_ops		= ARRAY_SIZE(secmap_genl_ops),
	/* Strict validation of header and attributes for every command. */
	.resv_start_op	= SECMAP_CMD_MAX + 1,
	/* Module addresses are a property of the host, not of a namespace. */
	.netnsok	= false,
};

/**
 * secmap_netlink_init() - register the family
 *
 * Return: 0 or a negative errno.
 */
int secmap_netlink_init(void)
{
	return genl_register_family(&secmap_genl_family);
}

/**
 * secmap_netlink_exit() - unregister the family; waits for running requests
 */
void secmap_netlink_exit(void)
{
	genl_unregister_family(&secmap_genl_family);
}
