/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers for the unit tests: craft secmap genetlink replies with libmnl. */
#ifndef SECMAP_TEST_MSG_H
#define SECMAP_TEST_MSG_H

#include <stdint.h>
#include <string.h>

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

/* A section as the current kernel sends it; @region < 0: no REGION attribute. */
static inline void msg_section_full(struct nlmsghdr *nlh, const char *name, uint64_t addr,
				    uint32_t flags, int region)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION);

	mnl_attr_put_strz(nlh, SECMAP_A_SECTION_NAME, name);
	mnl_attr_put(nlh, SECMAP_A_SECTION_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, SECMAP_A_SECTION_ADDR, addr);
	mnl_attr_put_u32(nlh, SECMAP_A_SECTION_FLAGS, flags);
	if (region >= 0)
		mnl_attr_put_u32(nlh, SECMAP_A_SECTION_REGION, region);
	mnl_attr_nest_end(nlh, nest);
}

struct msg_sec {
	const char *name;
	uint64_t addr;
	uint32_t flags;
	int region;		/* < 0: none */
};

/*
 * @n sections as the kernel sends them to a SECMAP_A_MODULE_COMPACT request:
 * the table, then the names; @misalign puts a 4-byte attribute first, so
 * that the table's payload is not 8-byte aligned.
 */
static inline void msg_section_table(struct nlmsghdr *nlh, const struct msg_sec *secs, size_t n,
				     int misalign)
{
	struct secmap_section_desc desc[32];
	char names[1024];
	size_t i, off = 0, len;

	for (i = 0; i < n && i < 32; i++) {
		len = strlen(secs[i].name) + 1;
		desc[i] = (struct secmap_section_desc) {
			.addr = secs[i].addr, .name_off = (uint32_t)off, .flags = secs[i].flags,
			.region = secs[i].region < 0 ? SECMAP_SECTION_NO_REGION :
						       (uint32_t)secs[i].region,
		};
		memcpy(names + off, secs[i].name, len);
		off += len;
	}
	if (misalign)
		mnl_attr_put_u32(nlh, SECMAP_A_MODULE_MAX + 1, 0);
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_TABLE, i * sizeof(desc[0]), desc);
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_NAMES, off, names);
}

static inline void msg_region(struct nlmsghdr *nlh, uint32_t type, uint64_t base, uint64_t size)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_REGION);

	mnl_attr_put_u32(nlh, SECMAP_A_REGION_TYPE, type);
	mnl_attr_put(nlh, SECMAP_A_REGION_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_BASE, base);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_SIZE, size);
	mnl_attr_nest_end(nlh, nest);
}

/* STATE, TAINT (after a PAD) and, if @id_len, BUILD_ID. */
static inline void msg_module_info(struct nlmsghdr *nlh, uint32_t state, uint64_t taint,
				   const void *id, size_t id_len)
{
	mnl_attr_put_u32(nlh, SECMAP_A_MODULE_STATE, state);
	mnl_attr_put(nlh, SECMAP_A_MODULE_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, SECMAP_A_MODULE_TAINT, taint);
	if (id_len)
		mnl_attr_put(nlh, SECMAP_A_MODULE_BUILD_ID, id_len, id);
}

static inline void msg_event(struct nlmsghdr *nlh, uint64_t seq, uint64_t local_ns,
			     uint64_t mono_ns)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_EVENT);

	mnl_attr_put_u64(nlh, SECMAP_A_EVENT_SEQ, seq);
	mnl_attr_put_u64(nlh, SECMAP_A_EVENT_TIME_LOCAL_NS, local_ns);
	mnl_attr_put_u64(nlh, SECMAP_A_EVENT_TIME_MONO_NS, mono_ns);
	mnl_attr_nest_end(nlh, nest);
}

/* A LIVE or GONE notification: name, state, event. */
static inline struct nlmsghdr *msg_ntf(void *buf, uint8_t cmd, const char *name, uint32_t state,
				       uint64_t seq)
{
	struct nlmsghdr *nlh = msg_start(buf, cmd);

	nlh->nlmsg_flags = 0;
	nlh->nlmsg_seq = 0;
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, name);
	mnl_attr_put_u32(nlh, SECMAP_A_MODULE_STATE, state);
	msg_event(nlh, seq, 1000 * seq, 2000 * seq);
	return nlh;
}

static inline struct nlmsghdr *msg_info(void *buf, uint32_t version, uint64_t generation,
					const char *release, uint32_t hook, uint64_t event_seq)
{
	struct nlmsghdr *nlh = msg_start(buf, SECMAP_CMD_INFO_GET);

	nlh->nlmsg_flags = 0;
	mnl_attr_put_u32(nlh, SECMAP_A_INFO_VERSION, version);
	mnl_attr_put(nlh, SECMAP_A_INFO_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, SECMAP_A_INFO_GENERATION, generation);
	mnl_attr_put_strz(nlh, SECMAP_A_INFO_RELEASE, release);
	mnl_attr_put_u32(nlh, SECMAP_A_INFO_HOOK, hook);
	mnl_attr_put_u64(nlh, SECMAP_A_INFO_EVENT_SEQ, event_seq);
	return nlh;
}

#endif /* SECMAP_TEST_MSG_H */
