/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers for the unit tests: craft secmap genetlink replies with libmnl. */
#ifndef SECMAP_TEST_MSG_H
#define SECMAP_TEST_MSG_H

#include <stdint.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/secmap.h>

/* Any dynamic genl family id; the parser does not look at it. */
#define TEST_FAMILY_ID 0x1d

static inline struct nlmsghdr *msg_start(void *buf, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = TEST_FAMILY_ID;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = 1;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = SECMAP_GENL_VERSION;
	return nlh;
}

static inline struct nlmsghdr *msg_module(void *buf, const char *name)
{
	struct nlmsghdr *nlh = msg_start(buf, SECMAP_CMD_MODULE_GET);

	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, name);
	return nlh;
}

/* As the kernel's nla_put_64bit() may: a PAD attribute before the u64. */
static inline void msg_section(struct nlmsghdr *nlh, const char *name, uint64_t addr, int pad)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION);

	mnl_attr_put_strz(nlh, SECMAP_A_SECTION_NAME, name);
	if (pad)
		mnl_attr_put(nlh, SECMAP_A_SECTION_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, SECMAP_A_SECTION_ADDR, addr);
	mnl_attr_nest_end(nlh, nest);
}

#endif /* SECMAP_TEST_MSG_H */
