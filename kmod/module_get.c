// SPDX-License-Identifier: GPL-2.0
/*
 * SECMAP_CMD_MODULE_GET: one module by name (doit) or all of them (dumpit),
 * each as a message with its sections.
 */
#include "internal.h"

const struct nla_policy secmap_module_get_policy[SECMAP_A_MODULE_NAME + 1] = {
	[SECMAP_A_MODULE_NAME] = { .type = NLA_NUL_STRING, .len = MODULE_NAME_LEN - 1 },
};

static int put_section(struct sk_buff *skb, const struct secmap_section *sec)
{
	struct nlattr *nest = nla_nest_start(skb, SECMAP_A_MODULE_SECTION);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, SECMAP_A_SECTION_NAME, sec->name) ||
	    nla_put_u64_64bit(skb, SECMAP_A_SECTION_ADDR, sec->addr, SECMAP_A_SECTION_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int fill_module(struct sk_buff *skb, const struct secmap_entry *entry,
		       u32 portid, u32 seq, int flags)
{
	unsigned int i;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &secmap_genl_family, flags, SECMAP_CMD_MODULE_GET);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_string(skb, SECMAP_A_MODULE_NAME, entry->name))
		goto cancel;
	for (i = 0; i < entry->nr_sections; i++)
		if (put_section(skb, &entry->sections[i]))
			goto cancel;

	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static size_t module_msg_size(const struct secmap_entry *entry)
{
	size_t size = nla_total_size(strlen(entry->name) + 1);
	unsigned int i;

	for (i = 0; i < entry->nr_sections; i++)
		size += nla_total_size(nla_total_size(strlen(entry->sections[i].name) + 1) +
				       nla_total_size_64bit(sizeof(u64)));
	return size;
}

/**
 * secmap_module_get_doit() - reply with the module named in the request
 * @skb: request
 * @info: request attributes
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int secmap_module_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct secmap_entry *entry;
	struct sk_buff *reply;
	const char *name;
	int ret;

	if (!secmap_netlink_may_read(skb)) {
		GENL_SET_ERR_MSG(info, "reading module addresses needs CAP_SYSLOG");
		return -EPERM;
	}
	if (GENL_REQ_ATTR_CHECK(info, SECMAP_A_MODULE_NAME))
		return -EINVAL;

	name = nla_data(info->attrs[SECMAP_A_MODULE_NAME]);
	entry = secmap_registry_get(name);
	if (!entry) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[SECMAP_A_MODULE_NAME],
				    "no such module loaded");
		return -ENOENT;
	}

	reply = genlmsg_new(module_msg_size(entry), GFP_KERNEL);
	if (!reply) {
		ret = -ENOMEM;
		goto out;
	}
	ret = fill_module(reply, entry, info->snd_portid, info->snd_seq, 0);
	if (ret) {
		nlmsg_free(reply);
		goto out;
	}
	ret = genlmsg_reply(reply, info);
out:
	secmap_entry_put(entry);
	return ret;
}

/**
 * secmap_module_get_start() - refuse a dump before it starts if not allowed
 * @cb: dump state
 *
 * Return: 0 or -EPERM.
 */
int secmap_module_get_start(struct netlink_callback *cb)
{
	if (!secmap_netlink_may_read(cb->skb)) {
		NL_SET_ERR_MSG(cb->extack, "reading module addresses needs CAP_SYSLOG");
		return -EPERM;
	}
	return 0;
}

struct dump_ctx {
	struct sk_buff *skb;
	struct netlink_callback *cb;
};

static int dump_one(const struct secmap_entry *entry, void *arg)
{
	struct dump_ctx *ctx = arg;

	return fill_module(ctx->skb, entry, NETLINK_CB(ctx->cb->skb).portid,
			   ctx->cb->nlh->nlmsg_seq, NLM_F_MULTI);
}

/**
 * secmap_module_get_dumpit() - one message per tracked module
 * @skb: buffer for this part of the dump
 * @cb: dump state; args[0] is the index of the next module to send
 *
 * Return: bytes written (more to come), 0 when done, or a negative errno.
 */
int secmap_module_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct dump_ctx ctx = { .skb = skb, .cb = cb };
	unsigned long pos = cb->args[0];
	int ret;

	ret = secmap_registry_walk(&pos, dump_one, &ctx);
	cb->args[0] = pos;
	/* A module too large for an empty buffer would stall the dump forever. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret;
}
