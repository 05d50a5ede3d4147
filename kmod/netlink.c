// SPDX-License-Identifier: GPL-2.0
/*
 * The "secmap" generic netlink family: registration, op table, multicast
 * group and the access rule shared by every command that shows addresses.
 * Commands live in one file each.
 */
#include "internal.h"
#include "compat.h"

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/string.h>

/**
 * secmap_addrs_hidden() - does kptr_restrict hide addresses from current?
 *
 * kptr_restrict is not exported; %pK applies it for the current task:
 * 2 hides from everyone, 1 from tasks without CAP_SYSLOG. Hidden pointers
 * print as zeroes, as many as a pointer has hex digits (8 on 32-bit).
 *
 * Return: true if kernel addresses must not be shown to the current task.
 */
bool secmap_addrs_hidden(void)
{
	static const int probe;
	char buf[2 * sizeof(void *) + 1];
	int len = snprintf(buf, sizeof(buf), "%pK", &probe);

	return len == 2 * sizeof(void *) && strspn(buf, "0") == (size_t)len;
}

/**
 * secmap_addrs_hidden_from_all() - is kptr_restrict 2, as far as current can tell?
 *
 * Whether an event carries addresses is the receivers' business, not the
 * loading task's: every subscriber was checked as MODULE_GET checks when it
 * subscribed (as /proc/kallsyms checks its opener at open). What remains is
 * kptr_restrict set to 2 since, hiding from everyone; its value is not
 * exported, and only a task that level 1 would show addresses to (CAP_SYSLOG,
 * same real and effective ids, as vsprintf checks) can tell 2 apart. From
 * any other task the answer is false: it must not strip addresses from
 * subscribers that may see them.
 *
 * Return: true if addresses are hidden even from a task allowed at level 1.
 */
bool secmap_addrs_hidden_from_all(void)
{
	const struct cred *cred = current_cred();

	if (!secmap_compat_syslog_capable_noaudit() ||
	    !uid_eq(cred->euid, cred->uid) || !gid_eq(cred->egid, cred->gid))
		return false;
	return secmap_addrs_hidden();
}

/**
 * secmap_dump_room() - make each part of a dump large enough for one message
 * @cb: dump state
 * @msg_len: the largest message's payload, netlink header excluded
 *
 * A dump's parts are NLMSG_GOODSIZE (or the reader's last receive size, up
 * to 32 KiB): a module of some hundred sections with long names does not
 * fit, and its dump or replay would end with -EMSGSIZE.
 */
void secmap_dump_room(struct netlink_callback *cb, size_t msg_len)
{
	size_t room = nlmsg_total_size(msg_len) + nlmsg_total_size(sizeof(int));

	if (room > NLMSG_GOODSIZE && room <= U32_MAX)
		cb->min_dump_alloc = max_t(u32, cb->min_dump_alloc, room);
}

/**
 * secmap_netlink_check_read() - may the sender of @skb see module addresses?
 * @skb: the request
 * @nlh: its header (a request skb may hold several messages); its version
 *	is checked first, as secmap_netlink_check_version() does
 * @extack: for the reason of a refusal
 *
 * Section addresses are kernel pointers. /sys/module/M/sections shows them
 * through kallsyms_show_value(), which at the default kptr_restrict=1 needs
 * CAP_SYSLOG; secmap asks the same of the socket's opener, in the initial
 * user namespace, and honours kptr_restrict=2 by refusing everyone.
 *
 * Return: 0, -EINVAL, -EOPNOTSUPP or -EPERM.
 */
int secmap_netlink_check_read(const struct sk_buff *skb, const struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	int ret = secmap_netlink_check_version(nlh, extack);

	if (ret)
		return ret;
	if (!netlink_capable(skb, CAP_SYSLOG)) {
		NL_SET_ERR_MSG(extack, "reading module addresses needs CAP_SYSLOG");
		return -EPERM;
	}
	if (secmap_addrs_hidden()) {
		NL_SET_ERR_MSG(extack, "kptr_restrict hides kernel addresses from this task");
		return -EPERM;
	}
	return 0;
}

/**
 * secmap_netlink_check_version() - refuse requests for an unknown version
 * @nlh: the request
 * @extack: for the reason of a refusal
 *
 * Version 0 means the sender did not say; a later version may mean
 * attributes this module would silently misread.
 *
 * Return: 0, -EINVAL (reserved header bits or flags set, which the core
 * refuses itself since 6.1) or -EOPNOTSUPP.
 */
int secmap_netlink_check_version(const struct nlmsghdr *nlh, struct netlink_ext_ack *extack)
{
	const struct genlmsghdr *hdr = nlmsg_data(nlh);
	int ret = secmap_compat_check_header(nlh, extack);

	if (ret)
		return ret;
	if (hdr->version && hdr->version <= SECMAP_GENL_VERSION)
		return 0;
	NL_SET_ERR_MSG(extack, "unsupported secmap family version in request");
	return -EOPNOTSUPP;
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
	{
		.cmd		= SECMAP_CMD_INFO_GET,
		.doit		= secmap_info_get_doit,
		.policy		= secmap_info_get_policy,
		.maxattr	= ARRAY_SIZE(secmap_info_get_policy) - 1,
	},
	{
		.cmd		= SECMAP_CMD_EVENTS_SUBSCRIBE,
		.doit		= secmap_events_subscribe_doit,
		.policy		= secmap_events_subscribe_policy,
		.maxattr	= ARRAY_SIZE(secmap_events_subscribe_policy) - 1,
	},
	{
		.cmd		= SECMAP_CMD_EVENTS_REPLAY,
		.start		= secmap_events_replay_start,
		.dumpit		= secmap_events_replay_dumpit,
		.policy		= secmap_events_replay_policy,
		.maxattr	= ARRAY_SIZE(secmap_events_replay_policy) - 1,
	},
};

/*
 * Anyone may join; only sockets that passed SECMAP_CMD_EVENTS_SUBSCRIBE
 * receive anything (subscribe.c).
 */
static const struct genl_multicast_group secmap_mcgrps[] = {
	[SECMAP_MCGRP_EVENTS_ID] = {
		.name	= SECMAP_MCGRP_EVENTS,
	},
};

struct genl_family secmap_genl_family __ro_after_init = {
	.name		= SECMAP_GENL_NAME,
	.version	= SECMAP_GENL_VERSION,
	.module		= THIS_MODULE,
	.ops		= secmap_genl_ops,
	.n_ops		= ARRAY_SIZE(secmap_genl_ops),
	.mcgrps		= secmap_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(secmap_mcgrps),
	/*
	 * .resv_start_op (6.1+) stays zero: every command is at or above it, so
	 * the core checks reserved header bits and nlmsg_flags and validates
	 * attributes strictly. Not named here: kernels before 6.1 lack the
	 * member and validate attributes strictly by default.
	 */
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
