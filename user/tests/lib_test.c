// SPDX-License-Identifier: GPL-2.0
/* Unit tests for libsecmap: reply parsing on crafted messages, lookups, errors. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "internal.h"
#include "msg.h"

#define BUF_SIZE 8192

FIXTURE(parse) {
	struct secmap_snapshot *snap;
	char *buf;
};

FIXTURE_SETUP(parse)
{
	self->snap = libsecmap_snapshot_new();
	ASSERT_NE(NULL, self->snap);
	/* calloc: padding bytes libmnl skips must not be uninitialised. */
	self->buf = calloc(1, BUF_SIZE);
	ASSERT_NE(NULL, self->buf);
}

FIXTURE_TEARDOWN(parse)
{
	secmap_snapshot_free(self->snap);
	free(self->buf);
}

/*
 * Parse a copy sized exactly nlmsg_len, so that ASan flags any read past
 * the end of the message.
 */
static int parse_exact(const struct nlmsghdr *nlh, struct secmap_snapshot *snap)
{
	struct nlmsghdr *copy = malloc(nlh->nlmsg_len);
	int ret;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, nlh, nlh->nlmsg_len);
	ret = libsecmap_parse_module_msg(copy, snap);
	free(copy);
	return ret;
}

TEST_F(parse, good_message)
{
	const struct secmap_module *mod;
	const struct secmap_section *sec;
	struct nlmsghdr *nlh;

	nlh = msg_module(self->buf, "dummy");
	msg_section(nlh, ".text", 0xffffffffc0564000ULL, 0);
	msg_section(nlh, ".data", 0xffffffffc0566040ULL, 1);
	msg_section(nlh, ".init.text", 0x1ULL, 0);

	ASSERT_EQ(0, parse_exact(nlh, self->snap));
	ASSERT_EQ(1U, secmap_snapshot_module_count(self->snap));
	mod = secmap_snapshot_module(self->snap, 0);
	ASSERT_NE(NULL, mod);
	EXPECT_STREQ("dummy", secmap_module_name(mod));
	ASSERT_EQ(3U, secmap_module_section_count(mod));

	sec = secmap_module_section(mod, 0);
	EXPECT_STREQ(".text", secmap_section_name(sec));
	/* All 64 bits survive: the high half is what a u32 mix-up would lose. */
	EXPECT_EQ(0xffffffffc0564000ULL, secmap_section_addr(sec));
	EXPECT_EQ(0xffffffffU, (uint32_t)(secmap_section_addr(sec) >> 32));

	sec = secmap_module_section(mod, 1);
	EXPECT_STREQ(".data", secmap_section_name(sec));
	EXPECT_EQ(0xffffffffc0566040ULL, secmap_section_addr(sec));

	sec = secmap_module_find_section(mod, ".init.text");
	ASSERT_NE(NULL, sec);
	EXPECT_EQ(1ULL, secmap_section_addr(sec));
	EXPECT_EQ(NULL, secmap_module_find_section(mod, ".bss"));
	EXPECT_EQ(NULL, secmap_module_section(mod, 3));
	EXPECT_EQ(NULL, secmap_snapshot_module(self->snap, 1));
}

TEST_F(parse, modules_keep_kernel_order)
{
	static const char * const names[] = { "zram", "dummy", "btrfs" };
	struct nlmsghdr *nlh;
	size_t i;

	for (i = 0; i < 3; i++) {
		nlh = msg_module(self->buf, names[i]);
		msg_section(nlh, ".text", 0xffffffffc0000000ULL + i, 0);
		ASSERT_EQ(0, parse_exact(nlh, self->snap));
	}
	ASSERT_EQ(3U, secmap_snapshot_module_count(self->snap));
	for (i = 0; i < 3; i++) {
		const struct secmap_module *mod = secmap_snapshot_module(self->snap, i);

		EXPECT_STREQ(names[i], secmap_module_name(mod));
		EXPECT_EQ(0xffffffffc0000000ULL + i,
			  secmap_section_addr(secmap_module_section(mod, 0)));
	}
}

TEST_F(parse, module_without_sections)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "empty");

	ASSERT_EQ(0, parse_exact(nlh, self->snap));
	ASSERT_EQ(1U, secmap_snapshot_module_count(self->snap));
	EXPECT_EQ(0U, secmap_module_section_count(secmap_snapshot_module(self->snap, 0)));
}

TEST_F(parse, unknown_attributes_ignored)
{
	struct nlmsghdr *nlh = msg_start(self->buf, SECMAP_CMD_MODULE_GET);
	struct nlattr *nest;
	const struct secmap_module *mod;

	/* What a newer kernel might add, at both levels and in any order. */
	mnl_attr_put_u32(nlh, SECMAP_A_MODULE_MAX + 1, 7);
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "dummy");
	nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION);
	mnl_attr_put_u64(nlh, SECMAP_A_SECTION_ADDR, 0xffffffffc0564000ULL);
	mnl_attr_put_u8(nlh, SECMAP_A_SECTION_MAX + 5, 1);
	mnl_attr_put_strz(nlh, SECMAP_A_SECTION_NAME, ".text");
	mnl_attr_nest_end(nlh, nest);
	mnl_attr_put(nlh, SECMAP_A_MODULE_MAX + 9, 3, "abc");

	ASSERT_EQ(0, parse_exact(nlh, self->snap));
	mod = secmap_snapshot_find(self->snap, "dummy");
	ASSERT_NE(NULL, mod);
	ASSERT_EQ(1U, secmap_module_section_count(mod));
	EXPECT_STREQ(".text", secmap_section_name(secmap_module_section(mod, 0)));
	EXPECT_EQ(0xffffffffc0564000ULL, secmap_section_addr(secmap_module_section(mod, 0)));
}

/* Every malformed case must fail with -EPROTO, set errno and add nothing. */
#define EXPECT_EPROTO(self, nlh) do {						\
	errno = 0;								\
	EXPECT_EQ(-EPROTO, parse_exact(nlh, (self)->snap));			\
	EXPECT_EQ(EPROTO, errno);						\
	EXPECT_EQ(0U, secmap_snapshot_module_count((self)->snap));		\
} while (0)

TEST_F(parse, truncated_attribute)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	struct nlattr *last;

	msg_section(nlh, ".text", 0xffffffffc0564000ULL, 0);
	last = (struct nlattr *)((char *)nlh + nlh->nlmsg_len);
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_MAX + 1, "future");
	/* The last attribute now claims more bytes than the message holds. */
	last->nla_len += 8;
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, message_cut_inside_attribute)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");

	msg_section(nlh, ".text", 0xffffffffc0564000ULL, 0);
	nlh->nlmsg_len -= 4;
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, unaligned_message_len)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");

	/* The name's NUL now lies in the padding outside the message. */
	nlh->nlmsg_len -= 3;
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, attribute_len_below_header)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	struct nlattr *bad = (struct nlattr *)((char *)nlh + nlh->nlmsg_len);

	mnl_attr_put_u32(nlh, SECMAP_A_MODULE_MAX + 1, 0);
	bad->nla_len = 2;
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, addr_as_u32)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	struct nlattr *nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION);

	mnl_attr_put_strz(nlh, SECMAP_A_SECTION_NAME, ".text");
	mnl_attr_put_u32(nlh, SECMAP_A_SECTION_ADDR, 0xc0564000U);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, missing_module_name)
{
	struct nlmsghdr *nlh = msg_start(self->buf, SECMAP_CMD_MODULE_GET);

	msg_section(nlh, ".text", 0xffffffffc0564000ULL, 0);
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, section_without_addr)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	struct nlattr *nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION);

	mnl_attr_put_strz(nlh, SECMAP_A_SECTION_NAME, ".text");
	mnl_attr_put(nlh, SECMAP_A_SECTION_PAD, 0, NULL);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, section_without_name)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	struct nlattr *nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION);

	mnl_attr_put_u64(nlh, SECMAP_A_SECTION_ADDR, 0xffffffffc0564000ULL);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, empty_section_nest)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");

	mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION));
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, unterminated_module_name)
{
	struct nlmsghdr *nlh = msg_start(self->buf, SECMAP_CMD_MODULE_GET);

	/* Followed by a zero padding byte, which must not count as the NUL. */
	mnl_attr_put(nlh, SECMAP_A_MODULE_NAME, 5, "dummy");
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, unterminated_section_name)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	struct nlattr *nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION);

	mnl_attr_put(nlh, SECMAP_A_SECTION_NAME, 8, ".textXYZ");
	mnl_attr_put_u64(nlh, SECMAP_A_SECTION_ADDR, 0xffffffffc0564000ULL);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, empty_names)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "");

	EXPECT_EPROTO(self, nlh);
	nlh = msg_module(self->buf, "dummy");
	msg_section(nlh, "", 0xffffffffc0564000ULL, 0);
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, duplicate_attributes)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	struct nlattr *nest;

	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "other");
	EXPECT_EPROTO(self, nlh);

	nlh = msg_module(self->buf, "dummy");
	nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION);
	mnl_attr_put_strz(nlh, SECMAP_A_SECTION_NAME, ".text");
	mnl_attr_put_u64(nlh, SECMAP_A_SECTION_ADDR, 1);
	mnl_attr_put_u64(nlh, SECMAP_A_SECTION_ADDR, 2);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, section_not_nested)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");

	/* Too short to hold even one attribute header. */
	mnl_attr_put_u16(nlh, SECMAP_A_MODULE_SECTION, 1);
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, bad_genl_header)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(self->buf);

	/* No room for the genetlink header at all. */
	EXPECT_EPROTO(self, nlh);

	nlh = msg_start(self->buf, SECMAP_CMD_MODULE_GET + 1);
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "dummy");
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, failure_leaves_snapshot_intact)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");

	msg_section(nlh, ".text", 0xffffffffc0564000ULL, 0);
	ASSERT_EQ(0, parse_exact(nlh, self->snap));

	nlh = msg_module(self->buf, "broken");
	msg_section(nlh, ".text", 0xffffffffc0570000ULL, 0);
	nlh->nlmsg_len -= 4;
	EXPECT_EQ(-EPROTO, parse_exact(nlh, self->snap));
	ASSERT_EQ(1U, secmap_snapshot_module_count(self->snap));
	EXPECT_STREQ("dummy", secmap_module_name(secmap_snapshot_module(self->snap, 0)));
	EXPECT_EQ(NULL, secmap_snapshot_find(self->snap, "broken"));
}

/* Every prefix and every single-byte corruption parses or fails cleanly. */
TEST_F(parse, no_crash_on_corruption)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	struct secmap_snapshot *snap;
	uint32_t full, len, i;
	int ret;

	msg_section(nlh, ".text", 0xffffffffc0564000ULL, 1);
	msg_section(nlh, ".data", 0xffffffffc0566000ULL, 0);
	full = nlh->nlmsg_len;

	for (len = MNL_NLMSG_HDRLEN; len <= full; len++) {
		snap = libsecmap_snapshot_new();
		ASSERT_NE(NULL, snap);
		nlh->nlmsg_len = len;
		ret = parse_exact(nlh, snap);
		EXPECT_TRUE(ret == 0 || ret == -EPROTO);
		secmap_snapshot_free(snap);
	}
	nlh->nlmsg_len = full;

	for (i = MNL_NLMSG_HDRLEN; i < full; i++) {
		unsigned char *p = (unsigned char *)nlh + i, saved = *p;
		unsigned int v;

		for (v = 0; v < 256; v += 51) {
			snap = libsecmap_snapshot_new();
			ASSERT_NE(NULL, snap);
			*p = v;
			ret = parse_exact(nlh, snap);
			EXPECT_TRUE(ret == 0 || ret == -EPROTO);
			secmap_snapshot_free(snap);
		}
		*p = saved;
	}
}

TEST_F(parse, find_dash_underscore)
{
	struct nlmsghdr *nlh;

	nlh = msg_module(self->buf, "snd_hda_intel");
	ASSERT_EQ(0, parse_exact(nlh, self->snap));
	nlh = msg_module(self->buf, "dm-mod");
	ASSERT_EQ(0, parse_exact(nlh, self->snap));

	EXPECT_STREQ("snd_hda_intel",
		     secmap_module_name(secmap_snapshot_find(self->snap, "snd_hda_intel")));
	EXPECT_STREQ("snd_hda_intel",
		     secmap_module_name(secmap_snapshot_find(self->snap, "snd-hda-intel")));
	EXPECT_STREQ("snd_hda_intel",
		     secmap_module_name(secmap_snapshot_find(self->snap, "snd-hda_intel")));
	EXPECT_STREQ("dm-mod", secmap_module_name(secmap_snapshot_find(self->snap, "dm_mod")));
	EXPECT_STREQ("dm-mod", secmap_module_name(secmap_snapshot_find(self->snap, "dm-mod")));

	errno = 0;
	EXPECT_EQ(NULL, secmap_snapshot_find(self->snap, "snd_hda"));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(NULL, secmap_snapshot_find(self->snap, "snd_hda_intel_x"));
	EXPECT_EQ(NULL, secmap_snapshot_find(self->snap, "snd.hda.intel"));
	EXPECT_EQ(NULL, secmap_snapshot_find(self->snap, ""));
	EXPECT_EQ(NULL, secmap_snapshot_find(self->snap, NULL));
}

TEST(null_handles)
{
	secmap_snapshot_free(NULL);
	secmap_client_close(NULL);
	EXPECT_EQ(0U, secmap_snapshot_module_count(NULL));
	EXPECT_EQ(NULL, secmap_snapshot_find(NULL, "dummy"));
	EXPECT_EQ(0U, secmap_module_section_count(NULL));
	errno = 0;
	EXPECT_EQ(-EINVAL, secmap_client_open(NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, secmap_client_dump(NULL, NULL));
}

TEST(strerror_messages)
{
	EXPECT_STREQ("secmap kernel module not loaded (family \"secmap\" not found)",
		     secmap_strerror(-ENOENT));
	EXPECT_STREQ("permission denied (needs CAP_SYSLOG)", secmap_strerror(-EPERM));
	EXPECT_STREQ("malformed reply from kernel", secmap_strerror(-EPROTO));
	EXPECT_STREQ(strerror(ENOMEM), secmap_strerror(-ENOMEM));
}

TEST_HARNESS_MAIN
