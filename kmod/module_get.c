// SPDX-License-Identifier: GPL-2.0
/*
 * SECMAP_CMD_MODULE_GET: one module by name (doit) or all of them (dumpit,
 * optionally filtered by name), one message per module.
 */
#include "internal.h"
#include "compat.h"

const struct nla_policy secmap_module_get_policy[SECMAP_A_MODULE_COMPACT + 1] = {
	[SECMAP_A_MODULE_NAME] = { .type = NLA_NUL_STRING, .len = MODULE_NAME_LEN - 1 },
	[SECMAP_A_MODULE_COMPACT] = { .type = NLA_FLAG },
};

/**
 * secmap_module_get_doit() - reply with the module named in the request
 * @skb: request
 * @info: request attributes
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int secmap_module_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	bool table = nla_get_flag(info->attrs[SECMAP_A_MODULE_COMPACT]);
	struct secmap_entry *entry;
	struct sk_buff *reply;
	const char *name;
	void *hdr;
	int ret;

	ret = secmap_netlink_check_read(skb, info->nlhdr, info->extack);
	if (ret)
		return ret;
	if (GENL_REQ_ATTR_CHECK(info, SECMAP_A_MODULE_NAME))
		return -EINVAL;

	name = nla_data(info->attrs[SECMAP_A_MODULE_NAME]);
	entry = secmap_registry_get(name);
	if (!entry) {
		secmap_compat_err_no_module(info->extack, info->attrs[SECMAP_A_MODULE_NAME], name);
		return -ENOENT;
	}

	reply = genlmsg_new(secmap_module_msg_size(entry, table), GFP_KERNEL);
	if (!reply) {
		ret = -ENOMEM;
		goto out;
	}
	hdr = genlmsg_put_reply(reply, info, &secmap_genl_family, 0, SECMAP_CMD_MODULE_GET);
	if (!hdr || secmap_module_msg_fill(reply, entry, true, table)) {
		nlmsg_free(reply);
		ret = -EMSGSIZE;
		goto out;
	}
	genlmsg_end(reply, hdr);
	ret = genlmsg_reply(reply, info);
out:
	secmap_entry_put(entry);
	return ret;
}

/**
 * secmap_module_get_start() - refuse a dump before it starts if not allowed
 * @cb: dump state
 *
 * Return: 0 or a negative errno.
 */
int secmap_module_get_start(struct netlink_callback *cb)
{
	struct nlattr **attrs = secmap_compat_dump_attrs(cb);
	bool table = attrs && nla_get_flag(attrs[SECMAP_A_MODULE_COMPACT]);
	int ret = secmap_netlink_check_read(cb->skb, cb->nlh, cb->extack);

	if (ret)
		return ret;
	secmap_dump_room(cb, GENL_HDRLEN + secmap_registry_max_msg_size(table));
	return 0;
}

struct dump_ctx {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	const char *filter;
	bool table;
};

static int dump_one(const struct secmap_entry *entry, void *arg)
{
	struct dump_ctx *ctx = arg;
	void *hdr;

	if (ctx->filter && strcmp(ctx->filter, entry->name))
		return 0;
	hdr = genlmsg_put(ctx->skb, NETLINK_CB(ctx->cb->skb).portid, ctx->cb->nlh->nlmsg_seq,
			  &secmap_genl_family, NLM_F_MULTI, SECMAP_CMD_MODULE_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(ctx->cb, hdr);
	if (secmap_module_msg_fill(ctx->skb, entry, true, ctx->table)) {
		genlmsg_cancel(ctx->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(ctx->skb, hdr);
	return 0;
}

/**
 * secmap_module_get_dumpit() - one message per tracked module
 * @skb: buffer for this part of the dump
 * @cb: dump state; args[0] is the index of the next module to send
 *
 * cb->seq carries the registry generation, so the core flags the dump
 * NLM_F_DUMP_INTR if modules came or went between parts.
 *
 * Return: bytes written (more to come), 0 when done, or a negative errno.
 */
int secmap_module_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = secmap_compat_dump_attrs(cb);
	struct dump_ctx ctx = { .skb = skb, .cb = cb };
	unsigned long pos = cb->args[0];
	u64 gen;
	int ret;

	if (attrs && attrs[SECMAP_A_MODULE_NAME])
		ctx.filter = nla_data(attrs[SECMAP_A_MODULE_NAME]);
	if (attrs)
		ctx.table = nla_get_flag(attrs[SECMAP_A_MODULE_COMPACT]);
	ret = secmap_registry_walk(&pos, &gen, dump_one, &ctx);
	cb->seq = gen;
	cb->args[0] = pos;
	/* A module too large for an empty buffer would stall the dump forever. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret;
}
