// SPDX-License-Identifier: GPL-2.0
/* Unit tests for libsecmap: reply parsing on crafted messages, lookups, errors. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/*
 * A datagram whose message claims 2^31 bytes or more: mnl_nlmsg_ok() takes
 * it (it compares as int), the library's own check must not.
 */
TEST(nlmsg_length_past_2g_refused)
{
	uint32_t buf[16] = { 0 };
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

	nlh->nlmsg_len = 0xfffffff0u;
	EXPECT_TRUE(mnl_nlmsg_ok(nlh, sizeof(buf)));	/* why ours exists */
	EXPECT_FALSE(libsecmap_nlmsg_ok(nlh, sizeof(buf)));
	EXPECT_EQ(-EPROTO, libsecmap_nlmsgs_ok(buf, sizeof(buf)));
	/* A second message that lies, after a good one. */
	nlh->nlmsg_len = 16;
	nlh = (struct nlmsghdr *)(buf + 4);
	nlh->nlmsg_len = 0x80000000u;
	EXPECT_EQ(-EPROTO, libsecmap_nlmsgs_ok(buf, sizeof(buf)));
	nlh->nlmsg_len = sizeof(buf) - 16;
	EXPECT_EQ(0, libsecmap_nlmsgs_ok(buf, sizeof(buf)));
	nlh->nlmsg_len = sizeof(buf) - 15;
	EXPECT_EQ(-EPROTO, libsecmap_nlmsgs_ok(buf, sizeof(buf)));
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

static const struct msg_sec table_secs[] = {
	{ ".text", 0xffffffffc0564000ULL, 0, SECMAP_REGION_TEXT },
	{ ".init.text", 0xffffffffc056a000ULL, SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED, -1 },
	{ ".data..percpu", 0x2c000ULL, 0, SECMAP_REGION_PERCPU },
	{ ".rodata.str1.1", 0xffffffffc0566040ULL, 0, SECMAP_REGION_RODATA },
};

/* The table and the nests are two spellings of the same sections. */
TEST_F(parse, section_table_reads_as_nests)
{
	const size_t n = sizeof(table_secs) / sizeof(table_secs[0]);
	const struct secmap_module *nested, *table;
	struct nlmsghdr *nlh;
	size_t i;
	int misalign;

	nlh = msg_module(self->buf, "nested");
	for (i = 0; i < n; i++)
		msg_section_full(nlh, table_secs[i].name, table_secs[i].addr, table_secs[i].flags,
				 table_secs[i].region);
	ASSERT_EQ(0, parse_exact(nlh, self->snap));
	for (misalign = 0; misalign < 2; misalign++) {
		nlh = msg_module(self->buf, misalign ? "misaligned" : "table");
		msg_section_table(nlh, table_secs, n, misalign);
		ASSERT_EQ(0, parse_exact(nlh, self->snap));
	}
	nested = secmap_snapshot_find(self->snap, "nested");
	ASSERT_NE(NULL, nested);
	ASSERT_EQ(n, secmap_module_section_count(nested));
	for (misalign = 0; misalign < 2; misalign++) {
		table = secmap_snapshot_find(self->snap, misalign ? "misaligned" : "table");
		ASSERT_NE(NULL, table);
		ASSERT_EQ(n, secmap_module_section_count(table));
		for (i = 0; i < n; i++) {
			const struct secmap_section *a = secmap_module_section(nested, i);
			const struct secmap_section *b = secmap_module_section(table, i);

			EXPECT_STREQ(table_secs[i].name, secmap_section_name(b));
			EXPECT_STREQ(secmap_section_name(a), secmap_section_name(b));
			EXPECT_EQ(secmap_section_addr(a), secmap_section_addr(b));
			EXPECT_EQ(secmap_section_flags(a), secmap_section_flags(b));
			EXPECT_EQ(secmap_section_region(a), secmap_section_region(b));
		}
	}
	EXPECT_EQ(-1, secmap_section_region(secmap_module_find_section(table, ".init.text")));
}

TEST_F(parse, section_table_malformed)
{
	struct secmap_section_desc desc = { .addr = 1, .region = SECMAP_SECTION_NO_REGION };
	struct nlmsghdr *nlh;

	/* Not a whole number of entries. */
	nlh = msg_module(self->buf, "dummy");
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_TABLE, sizeof(desc) - 4, &desc);
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_NAMES, 6, ".text");
	EXPECT_EPROTO(self, nlh);

	/* A table without names, and names without a table. */
	nlh = msg_module(self->buf, "dummy");
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_TABLE, sizeof(desc), &desc);
	EXPECT_EPROTO(self, nlh);
	nlh = msg_module(self->buf, "dummy");
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_NAMES, 6, ".text");
	EXPECT_EPROTO(self, nlh);

	/* Twice the table. */
	nlh = msg_module(self->buf, "dummy");
	msg_section_table(nlh, table_secs, 1, 0);
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_TABLE, sizeof(desc), &desc);
	EXPECT_EPROTO(self, nlh);

	/* A name offset at or past the end of the names. */
	nlh = msg_module(self->buf, "dummy");
	desc.name_off = 6;
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_TABLE, sizeof(desc), &desc);
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_NAMES, 6, ".text");
	EXPECT_EPROTO(self, nlh);
	desc.name_off = 0;

	/* A name that runs off the end (the padding after it is zero). */
	nlh = msg_module(self->buf, "dummy");
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_TABLE, sizeof(desc), &desc);
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_NAMES, 5, ".text");
	EXPECT_EPROTO(self, nlh);

	/* An empty name. */
	nlh = msg_module(self->buf, "dummy");
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_TABLE, sizeof(desc), &desc);
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_NAMES, 1, "");
	EXPECT_EPROTO(self, nlh);

	/* A region that is neither a region type nor "none". */
	desc.region = 0x80000000u;
	nlh = msg_module(self->buf, "dummy");
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_TABLE, sizeof(desc), &desc);
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_NAMES, 6, ".text");
	EXPECT_EPROTO(self, nlh);

	/* The same table with a valid region parses: the cases above fail for their reason. */
	desc.region = SECMAP_REGION_TEXT;
	nlh = msg_module(self->buf, "dummy");
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_TABLE, sizeof(desc), &desc);
	mnl_attr_put(nlh, SECMAP_A_MODULE_SECTION_NAMES, 6, ".text");
	EXPECT_EQ(0, parse_exact(nlh, self->snap));
}

/*
 * A compact reply cut at every length past its netlink header (the receive
 * loop checks that much before any parser runs), and with every bit after
 * it flipped in turn: each parse either succeeds or says -EPROTO (ASan
 * checks the reads).
 */
TEST(section_table_cut_and_flipped)
{
	const size_t n = sizeof(table_secs) / sizeof(table_secs[0]);
	static char buf[BUF_SIZE], work[BUF_SIZE];
	struct nlmsghdr *nlh = msg_module(buf, "dummy");
	struct secmap_snapshot *snap;
	uint32_t full, len;
	size_t byte;
	int bit, ret, fails = 0;

	msg_region(nlh, SECMAP_REGION_TEXT, 0xffffffffc0564000ULL, 8192);
	msg_section_table(nlh, table_secs, n, 1);
	full = nlh->nlmsg_len;
	for (len = sizeof(struct nlmsghdr); len <= full; len++) {
		memcpy(work, buf, full);
		((struct nlmsghdr *)work)->nlmsg_len = len;
		snap = libsecmap_snapshot_new();
		ASSERT_NE(NULL, snap);
		ret = parse_exact((struct nlmsghdr *)work, snap);
		EXPECT_TRUE(ret == 0 || ret == -EPROTO) TH_LOG("cut at %u: %d", len, ret);
		fails += ret != 0;
		secmap_snapshot_free(snap);
	}
	/* Only whole attributes parse: all but a few cuts land inside one. */
	EXPECT_LE((int)(full - sizeof(struct nlmsghdr) - 8), fails);
	for (byte = sizeof(struct nlmsghdr); byte < full; byte++) {
		for (bit = 0; bit < 8; bit++) {
			const struct secmap_module *mod;
			size_t i;

			memcpy(work, buf, full);
			work[byte] ^= (char)(1 << bit);
			snap = libsecmap_snapshot_new();
			ASSERT_NE(NULL, snap);
			ret = parse_exact((struct nlmsghdr *)work, snap);
			EXPECT_TRUE(ret == 0 || ret == -EPROTO)
				TH_LOG("byte %zu bit %d: %d", byte, bit, ret);
			mod = secmap_snapshot_module(snap, 0);
			for (i = 0; !ret && mod && i < secmap_module_section_count(mod); i++)
				EXPECT_LT(0U, strlen(secmap_section_name(secmap_module_section(mod, i))));
			secmap_snapshot_free(snap);
		}
	}
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

/*
 * Many sections and names of every length: the arrays are sized from the
 * message and the names share blocks; nothing may move under earlier
 * modules as later ones are added.
 */
TEST_F(parse, many_sections_long_names)
{
	size_t size = 1 << 20, i, m, len;
	char *buf = calloc(1, size), name[4100];
	const struct secmap_module *mod;
	struct nlmsghdr *nlh;

	ASSERT_NE(NULL, buf);
	for (m = 0; m < 3; m++) {
		snprintf(name, sizeof(name), "mod%zu", m);
		nlh = msg_module(buf, name);
		for (i = 0; i < 700; i++) {
			len = 1 + (i * 37 + m) % (i == 500 ? 4000 : 60);
			memset(name, 'a' + (i + m) % 26, len);
			name[len] = '\0';
			msg_section_full(nlh, name, 0xffffffffc0000000ULL + i, 0, (int)(i % 3) - 1);
		}
		msg_region(nlh, SECMAP_REGION_TEXT, 0xffffffffc0000000ULL, 4096);
		ASSERT_EQ(0, parse_exact(nlh, self->snap));
	}
	ASSERT_EQ(3U, secmap_snapshot_module_count(self->snap));
	for (m = 0; m < 3; m++) {
		mod = secmap_snapshot_module(self->snap, m);
		snprintf(name, sizeof(name), "mod%zu", m);
		EXPECT_STREQ(name, secmap_module_name(mod));
		ASSERT_EQ(700U, secmap_module_section_count(mod));
		EXPECT_EQ(1U, secmap_module_region_count(mod));
		for (i = 0; i < 700; i++) {
			const struct secmap_section *sec = secmap_module_section(mod, i);

			len = 1 + (i * 37 + m) % (i == 500 ? 4000 : 60);
			memset(name, 'a' + (i + m) % 26, len);
			name[len] = '\0';
			EXPECT_STREQ(name, secmap_section_name(sec));
			EXPECT_EQ(0xffffffffc0000000ULL + i, secmap_section_addr(sec));
			EXPECT_EQ((int)(i % 3) - 1, secmap_section_region(sec));
		}
	}
	free(buf);
}

/*
 * Every prefix of @nlh, and @nlh with each byte set to 0, @step, 2 * @step...
 * in turn, parses or fails cleanly.
 */
static void parse_corrupted(struct __test_metadata *_metadata, struct nlmsghdr *nlh,
			    unsigned int step)
{
	uint32_t full = nlh->nlmsg_len, len, i;
	struct secmap_snapshot *snap;
	int ret;

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

		for (v = 0; v < 256; v += step) {
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

/* Every prefix and every single-byte corruption parses or fails cleanly. */
TEST_F(parse, no_crash_on_corruption)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");

	msg_section(nlh, ".text", 0xffffffffc0564000ULL, 1);
	msg_section(nlh, ".data", 0xffffffffc0566000ULL, 0);
	parse_corrupted(_metadata, nlh, 51);
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

static const uint8_t build_id20[20] = {
	0x3f, 0x2a, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0xff, 0xfe, 0x10,
};

/* A module as the current kernel sends it: every attribute, with PADs. */
static struct nlmsghdr *msg_full_module(void *buf, const char *name)
{
	struct nlmsghdr *nlh = msg_module(buf, name);

	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0x3000, build_id20, sizeof(build_id20));
	msg_region(nlh, SECMAP_REGION_TEXT, 0xffffffffc0564000ULL, 0x2000);
	msg_region(nlh, SECMAP_REGION_DATA, 0xffffffffc0566000ULL, 0x1000);
	msg_section_full(nlh, ".text", 0xffffffffc0564000ULL, 0, SECMAP_REGION_TEXT);
	msg_section_full(nlh, ".init.text", 0xffffffffc0a01000ULL,
			 SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED, -1);
	msg_section_full(nlh, ".data", 0xffffffffc0566000ULL, 0, SECMAP_REGION_DATA);
	return nlh;
}

TEST_F(parse, full_module)
{
	const struct secmap_module *mod;
	const struct secmap_section *sec;
	const struct secmap_region *reg;
	const uint8_t *id = NULL;

	ASSERT_EQ(0, parse_exact(msg_full_module(self->buf, "dummy"), self->snap));
	mod = secmap_snapshot_module(self->snap, 0);
	ASSERT_NE(NULL, mod);
	EXPECT_EQ(SECMAP_MODULE_STATE_LIVE, secmap_module_state(mod));
	EXPECT_EQ(0x3000ULL, secmap_module_taint(mod));
	ASSERT_EQ(20U, secmap_module_build_id(mod, &id));
	ASSERT_NE(NULL, id);
	EXPECT_EQ(0, memcmp(build_id20, id, 20));

	ASSERT_EQ(2U, secmap_module_region_count(mod));
	reg = secmap_module_region(mod, 0);
	EXPECT_EQ(SECMAP_REGION_TEXT, secmap_region_type(reg));
	EXPECT_EQ(0xffffffffc0564000ULL, secmap_region_base(reg));
	EXPECT_EQ(0x2000ULL, secmap_region_size(reg));
	reg = secmap_module_region(mod, 1);
	EXPECT_EQ(SECMAP_REGION_DATA, secmap_region_type(reg));
	EXPECT_EQ(0xffffffffc0566000ULL, secmap_region_base(reg));
	EXPECT_EQ(0x1000ULL, secmap_region_size(reg));
	errno = 0;
	EXPECT_EQ(NULL, secmap_module_region(mod, 2));
	EXPECT_EQ(ENOENT, errno);

	ASSERT_EQ(3U, secmap_module_section_count(mod));
	sec = secmap_module_find_section(mod, ".text");
	EXPECT_EQ(0U, secmap_section_flags(sec));
	EXPECT_EQ(SECMAP_REGION_TEXT, secmap_section_region(sec));
	sec = secmap_module_find_section(mod, ".init.text");
	EXPECT_EQ(SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED, secmap_section_flags(sec));
	EXPECT_EQ(-1, secmap_section_region(sec));
	EXPECT_EQ(0xffffffffc0a01000ULL, secmap_section_addr(sec));
	sec = secmap_module_find_section(mod, ".data");
	EXPECT_EQ(SECMAP_REGION_DATA, secmap_section_region(sec));
}

/* What the first secmap sent: name and sections with name and address only. */
TEST_F(parse, old_kernel_defaults)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	const struct secmap_module *mod;
	const uint8_t *id = (const uint8_t *)"x";

	msg_section(nlh, ".text", 0xffffffffc0564000ULL, 0);
	ASSERT_EQ(0, parse_exact(nlh, self->snap));
	mod = secmap_snapshot_module(self->snap, 0);
	EXPECT_EQ(0U, secmap_module_state(mod));
	EXPECT_EQ(0ULL, secmap_module_taint(mod));
	EXPECT_EQ(0U, secmap_module_build_id(mod, &id));
	EXPECT_EQ(NULL, id);
	EXPECT_EQ(0U, secmap_module_region_count(mod));
	EXPECT_EQ(0U, secmap_section_flags(secmap_module_section(mod, 0)));
	EXPECT_EQ(-1, secmap_section_region(secmap_module_section(mod, 0)));
}

TEST_F(parse, build_id_lengths)
{
	uint8_t id64[65];
	const uint8_t *id;
	struct nlmsghdr *nlh;

	memset(id64, 0xab, sizeof(id64));
	/* md5 (16), sha1 (20), and anything up to 64 bytes. */
	nlh = msg_module(self->buf, "md5");
	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0, id64, 16);
	ASSERT_EQ(0, parse_exact(nlh, self->snap));
	nlh = msg_module(self->buf, "big");
	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0, id64, 64);
	ASSERT_EQ(0, parse_exact(nlh, self->snap));
	EXPECT_EQ(16U, secmap_module_build_id(secmap_snapshot_find(self->snap, "md5"), &id));
	EXPECT_EQ(64U, secmap_module_build_id(secmap_snapshot_find(self->snap, "big"), &id));
	EXPECT_EQ(0xab, id[63]);
}

TEST_F(parse, build_id_too_long)
{
	uint8_t id[65] = { 0 };
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");

	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0, id, sizeof(id));
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, build_id_empty)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");

	mnl_attr_put(nlh, SECMAP_A_MODULE_BUILD_ID, 0, NULL);
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, build_id_twice)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");

	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0, build_id20, 20);
	mnl_attr_put(nlh, SECMAP_A_MODULE_BUILD_ID, 20, build_id20);
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, state_wrong_length)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");

	mnl_attr_put_u64(nlh, SECMAP_A_MODULE_STATE, SECMAP_MODULE_STATE_LIVE);
	EXPECT_EPROTO(self, nlh);
	nlh = msg_module(self->buf, "dummy");
	mnl_attr_put_u16(nlh, SECMAP_A_MODULE_STATE, SECMAP_MODULE_STATE_LIVE);
	EXPECT_EPROTO(self, nlh);
	nlh = msg_module(self->buf, "dummy");
	mnl_attr_put_u32(nlh, SECMAP_A_MODULE_STATE, SECMAP_MODULE_STATE_LIVE);
	mnl_attr_put_u32(nlh, SECMAP_A_MODULE_STATE, SECMAP_MODULE_STATE_GOING);
	EXPECT_EPROTO(self, nlh);
}

/* An unknown state value is not malformed: a newer kernel may add states. */
TEST_F(parse, state_unknown_value)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");

	mnl_attr_put_u32(nlh, SECMAP_A_MODULE_STATE, 77);
	ASSERT_EQ(0, parse_exact(nlh, self->snap));
	EXPECT_EQ(77U, secmap_module_state(secmap_snapshot_module(self->snap, 0)));
	EXPECT_EQ(NULL, secmap_module_state_name(77));
}

TEST_F(parse, taint_wrong_length)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");

	mnl_attr_put_u32(nlh, SECMAP_A_MODULE_TAINT, 0x3000);
	EXPECT_EPROTO(self, nlh);
	nlh = msg_module(self->buf, "dummy");
	mnl_attr_put(nlh, SECMAP_A_MODULE_TAINT, 12, "123456789012");
	EXPECT_EPROTO(self, nlh);
}

static struct nlattr *region_start(struct nlmsghdr *nlh)
{
	return mnl_attr_nest_start(nlh, SECMAP_A_MODULE_REGION);
}

TEST_F(parse, region_missing_fields)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	struct nlattr *nest = region_start(nlh);

	/* No TYPE. */
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_BASE, 0xffffffffc0564000ULL);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_SIZE, 0x1000);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);

	nlh = msg_module(self->buf, "dummy");
	nest = region_start(nlh);
	mnl_attr_put_u32(nlh, SECMAP_A_REGION_TYPE, SECMAP_REGION_TEXT);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_SIZE, 0x1000);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);

	nlh = msg_module(self->buf, "dummy");
	nest = region_start(nlh);
	mnl_attr_put_u32(nlh, SECMAP_A_REGION_TYPE, SECMAP_REGION_TEXT);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_BASE, 0xffffffffc0564000ULL);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);

	nlh = msg_module(self->buf, "dummy");
	mnl_attr_nest_end(nlh, region_start(nlh));
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, region_wrong_lengths)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	struct nlattr *nest = region_start(nlh);

	mnl_attr_put_u64(nlh, SECMAP_A_REGION_TYPE, SECMAP_REGION_TEXT);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_BASE, 0xffffffffc0564000ULL);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_SIZE, 0x1000);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);

	nlh = msg_module(self->buf, "dummy");
	nest = region_start(nlh);
	mnl_attr_put_u32(nlh, SECMAP_A_REGION_TYPE, SECMAP_REGION_TEXT);
	mnl_attr_put_u32(nlh, SECMAP_A_REGION_BASE, 0xc0564000U);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_SIZE, 0x1000);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);

	nlh = msg_module(self->buf, "dummy");
	nest = region_start(nlh);
	mnl_attr_put_u32(nlh, SECMAP_A_REGION_TYPE, SECMAP_REGION_TEXT);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_BASE, 0xffffffffc0564000ULL);
	mnl_attr_put_u32(nlh, SECMAP_A_REGION_SIZE, 0x1000);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);

	/* Not a nest at all. */
	nlh = msg_module(self->buf, "dummy");
	mnl_attr_put_u16(nlh, SECMAP_A_MODULE_REGION, 1);
	EXPECT_EPROTO(self, nlh);
}

TEST_F(parse, region_duplicate_and_unknown)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	struct nlattr *nest = region_start(nlh);
	const struct secmap_region *reg;

	mnl_attr_put_u32(nlh, SECMAP_A_REGION_TYPE, SECMAP_REGION_TEXT);
	mnl_attr_put_u32(nlh, SECMAP_A_REGION_TYPE, SECMAP_REGION_DATA);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_BASE, 1);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_SIZE, 2);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);

	/* Unknown attributes and an unknown (future) region type are fine. */
	nlh = msg_module(self->buf, "dummy");
	nest = region_start(nlh);
	mnl_attr_put_u8(nlh, SECMAP_A_REGION_MAX + 1, 9);
	mnl_attr_put_u32(nlh, SECMAP_A_REGION_TYPE, 42);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_BASE, 1);
	mnl_attr_put_u64(nlh, SECMAP_A_REGION_SIZE, 2);
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, parse_exact(nlh, self->snap));
	reg = secmap_module_region(secmap_snapshot_module(self->snap, 0), 0);
	EXPECT_EQ(42U, secmap_region_type(reg));
	EXPECT_EQ(NULL, secmap_region_type_name(42));
}

TEST_F(parse, section_flags_region_wrong)
{
	struct nlmsghdr *nlh = msg_module(self->buf, "dummy");
	struct nlattr *nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION);

	mnl_attr_put_strz(nlh, SECMAP_A_SECTION_NAME, ".text");
	mnl_attr_put_u64(nlh, SECMAP_A_SECTION_ADDR, 1);
	mnl_attr_put_u64(nlh, SECMAP_A_SECTION_FLAGS, 1);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);

	nlh = msg_module(self->buf, "dummy");
	nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION);
	mnl_attr_put_strz(nlh, SECMAP_A_SECTION_NAME, ".text");
	mnl_attr_put_u64(nlh, SECMAP_A_SECTION_ADDR, 1);
	mnl_attr_put_u8(nlh, SECMAP_A_SECTION_REGION, 0);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);

	/* secmap_section_region() could not tell it from "none". */
	nlh = msg_module(self->buf, "dummy");
	nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION);
	mnl_attr_put_strz(nlh, SECMAP_A_SECTION_NAME, ".text");
	mnl_attr_put_u64(nlh, SECMAP_A_SECTION_ADDR, 1);
	mnl_attr_put_u32(nlh, SECMAP_A_SECTION_REGION, 0x80000000U);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);

	nlh = msg_module(self->buf, "dummy");
	nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_SECTION);
	mnl_attr_put_strz(nlh, SECMAP_A_SECTION_NAME, ".text");
	mnl_attr_put_u64(nlh, SECMAP_A_SECTION_ADDR, 1);
	mnl_attr_put_u32(nlh, SECMAP_A_SECTION_FLAGS, 1);
	mnl_attr_put_u32(nlh, SECMAP_A_SECTION_FLAGS, 1);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EPROTO(self, nlh);
}

/* Only notifications carry an event nest; a reply with one just ignores it. */
TEST_F(parse, event_in_reply_ignored)
{
	struct nlmsghdr *nlh = msg_full_module(self->buf, "dummy");

	mnl_attr_put(nlh, SECMAP_A_MODULE_EVENT, 3, "xyz");
	ASSERT_EQ(0, parse_exact(nlh, self->snap));
	EXPECT_EQ(1U, secmap_snapshot_module_count(self->snap));
}

TEST_F(parse, no_crash_on_corruption_full)
{
	parse_corrupted(_metadata, msg_full_module(self->buf, "dummy"), 85);
}

/* INFO_GET replies. */

static int parse_info_exact(const struct nlmsghdr *nlh, struct secmap_info *info)
{
	struct nlmsghdr *copy = malloc(nlh->nlmsg_len);
	int ret;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, nlh, nlh->nlmsg_len);
	ret = libsecmap_parse_info_msg(copy, info);
	free(copy);
	return ret;
}

TEST_F(parse, info_good)
{
	SECMAP_OPTS(secmap_info, info);
	struct nlmsghdr *nlh;

	memset(&info, 0x55, sizeof(info));
	info.sz = sizeof(info);
	nlh = msg_info(self->buf, 1, 0x100000002ULL, "6.1.0-18-amd64", SECMAP_HOOK_TRACEPOINT,
		       0x300000004ULL);
	mnl_attr_put_u32(nlh, SECMAP_A_INFO_MAX + 1, 5);
	ASSERT_EQ(0, parse_info_exact(nlh, &info));
	EXPECT_EQ(1U, info.version);
	EXPECT_EQ(0x100000002ULL, info.generation);
	EXPECT_STREQ("6.1.0-18-amd64", info.release);
	EXPECT_EQ(SECMAP_HOOK_TRACEPOINT, info.hook);
	EXPECT_EQ(0x300000004ULL, info.event_seq);
}

TEST_F(parse, info_release_lengths)
{
	char rel[66];
	SECMAP_OPTS(secmap_info, info);

	memset(rel, 'r', 64);
	rel[64] = '\0';
	ASSERT_EQ(0, parse_info_exact(msg_info(self->buf, 1, 1, rel, 2, 0), &info));
	EXPECT_STREQ(rel, info.release);
	rel[64] = 'r';
	rel[65] = '\0';
	EXPECT_EQ(-EPROTO, parse_info_exact(msg_info(self->buf, 1, 1, rel, 2, 0), &info));
}

TEST_F(parse, info_malformed)
{
	SECMAP_OPTS(secmap_info, info);
	SECMAP_OPTS(secmap_info, before);
	struct nlmsghdr *nlh;
	int skip;

	memset(&info, 0x55, sizeof(info));
	info.sz = sizeof(info);
	before = info;

	/* Each attribute missing in turn. */
	for (skip = SECMAP_A_INFO_VERSION; skip <= SECMAP_A_INFO_EVENT_SEQ; skip++) {
		nlh = msg_start(self->buf, SECMAP_CMD_INFO_GET);
		if (skip != SECMAP_A_INFO_VERSION)
			mnl_attr_put_u32(nlh, SECMAP_A_INFO_VERSION, 1);
		if (skip != SECMAP_A_INFO_GENERATION)
			mnl_attr_put_u64(nlh, SECMAP_A_INFO_GENERATION, 1);
		if (skip != SECMAP_A_INFO_RELEASE)
			mnl_attr_put_strz(nlh, SECMAP_A_INFO_RELEASE, "6.1.0");
		if (skip != SECMAP_A_INFO_HOOK)
			mnl_attr_put_u32(nlh, SECMAP_A_INFO_HOOK, 1);
		if (skip != SECMAP_A_INFO_EVENT_SEQ)
			mnl_attr_put_u64(nlh, SECMAP_A_INFO_EVENT_SEQ, 1);
		EXPECT_EQ(-EPROTO, parse_info_exact(nlh, &info)) TH_LOG("without %d", skip);
	}

	/* Wrong lengths. */
	nlh = msg_start(self->buf, SECMAP_CMD_INFO_GET);
	mnl_attr_put_u64(nlh, SECMAP_A_INFO_VERSION, 1);
	mnl_attr_put_u64(nlh, SECMAP_A_INFO_GENERATION, 1);
	mnl_attr_put_strz(nlh, SECMAP_A_INFO_RELEASE, "6.1.0");
	mnl_attr_put_u32(nlh, SECMAP_A_INFO_HOOK, 1);
	EXPECT_EQ(-EPROTO, parse_info_exact(nlh, &info));

	nlh = msg_start(self->buf, SECMAP_CMD_INFO_GET);
	mnl_attr_put_u32(nlh, SECMAP_A_INFO_VERSION, 1);
	mnl_attr_put_u32(nlh, SECMAP_A_INFO_GENERATION, 1);
	mnl_attr_put_strz(nlh, SECMAP_A_INFO_RELEASE, "6.1.0");
	mnl_attr_put_u32(nlh, SECMAP_A_INFO_HOOK, 1);
	EXPECT_EQ(-EPROTO, parse_info_exact(nlh, &info));

	/* Unterminated release. */
	nlh = msg_start(self->buf, SECMAP_CMD_INFO_GET);
	mnl_attr_put_u32(nlh, SECMAP_A_INFO_VERSION, 1);
	mnl_attr_put_u64(nlh, SECMAP_A_INFO_GENERATION, 1);
	mnl_attr_put(nlh, SECMAP_A_INFO_RELEASE, 5, "6.1.0");
	mnl_attr_put_u32(nlh, SECMAP_A_INFO_HOOK, 1);
	EXPECT_EQ(-EPROTO, parse_info_exact(nlh, &info));

	/* A module reply is not an info reply. */
	nlh = msg_info(self->buf, 1, 1, "6.1.0", 1, 0);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd = SECMAP_CMD_MODULE_GET;
	EXPECT_EQ(-EPROTO, parse_info_exact(nlh, &info));

	/* Cut. */
	nlh = msg_info(self->buf, 1, 1, "6.1.0", 1, 0);
	nlh->nlmsg_len -= 4;
	EXPECT_EQ(-EPROTO, parse_info_exact(nlh, &info));

	EXPECT_EQ(0, memcmp(&before, &info, sizeof(info)));
}

/* Notifications. */

FIXTURE(events) {
	struct libsecmap_event_state st;
	char *buf;
};

FIXTURE_SETUP(events)
{
	memset(&self->st, 0, sizeof(self->st));
	self->buf = calloc(1, BUF_SIZE);
	ASSERT_NE(NULL, self->buf);
}

FIXTURE_TEARDOWN(events)
{
	free(self->buf);
}

static int parse_event_exact(const struct nlmsghdr *nlh, struct libsecmap_event_state *st,
			     struct secmap_event **ev)
{
	struct nlmsghdr *copy = malloc(nlh->nlmsg_len);
	int ret;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, nlh, nlh->nlmsg_len);
	ret = libsecmap_parse_event_msg(copy, st, ev);
	free(copy);
	return ret;
}

static struct nlmsghdr *msg_new_ntf(void *buf, const char *name, uint64_t seq)
{
	struct nlmsghdr *nlh = msg_start(buf, SECMAP_CMD_MODULE_NEW_NTF);

	nlh->nlmsg_flags = 0;
	nlh->nlmsg_seq = 0;
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, name);
	msg_module_info(nlh, SECMAP_MODULE_STATE_COMING, 0, build_id20, sizeof(build_id20));
	msg_region(nlh, SECMAP_REGION_TEXT, 0xffffffffc0564000ULL, 0x2000);
	msg_region(nlh, SECMAP_REGION_INIT_TEXT, 0xffffffffc0a01000ULL, 0x1000);
	msg_section_full(nlh, ".text", 0xffffffffc0564000ULL, 0, SECMAP_REGION_TEXT);
	msg_section_full(nlh, ".init.text", 0xffffffffc0a01000ULL, SECMAP_SECTION_F_INIT,
			 SECMAP_REGION_INIT_TEXT);
	msg_event(nlh, seq, 111111, 222222);
	return nlh;
}

TEST_F(events, new_event)
{
	const struct secmap_module *mod;
	struct secmap_event *ev = NULL;

	ASSERT_EQ(0, parse_event_exact(msg_new_ntf(self->buf, "dummy", 7), &self->st, &ev));
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(SECMAP_CMD_MODULE_NEW_NTF, secmap_event_type(ev));
	EXPECT_EQ(7ULL, secmap_event_seq(ev));
	EXPECT_EQ(111111ULL, secmap_event_time_local_ns(ev));
	EXPECT_EQ(222222ULL, secmap_event_time_mono_ns(ev));
	/* The first event seen: nothing to compare with. */
	EXPECT_EQ(0ULL, secmap_event_lost(ev));
	mod = secmap_event_module(ev);
	EXPECT_STREQ("dummy", secmap_module_name(mod));
	EXPECT_EQ(SECMAP_MODULE_STATE_COMING, secmap_module_state(mod));
	EXPECT_EQ(20U, secmap_module_build_id(mod, NULL));
	EXPECT_EQ(2U, secmap_module_region_count(mod));
	ASSERT_EQ(2U, secmap_module_section_count(mod));
	EXPECT_EQ(SECMAP_SECTION_F_INIT, secmap_section_flags(secmap_module_section(mod, 1)));
	EXPECT_EQ(SECMAP_REGION_INIT_TEXT, secmap_section_region(secmap_module_section(mod, 1)));
	EXPECT_EQ(7ULL, self->st.last_seq);
	secmap_event_free(ev);
}

TEST_F(events, live_and_gone)
{
	struct secmap_event *ev = NULL;

	ASSERT_EQ(0, parse_event_exact(msg_ntf(self->buf, SECMAP_CMD_MODULE_LIVE_NTF, "dummy",
					       SECMAP_MODULE_STATE_LIVE, 1), &self->st, &ev));
	EXPECT_EQ(SECMAP_CMD_MODULE_LIVE_NTF, secmap_event_type(ev));
	EXPECT_EQ(SECMAP_MODULE_STATE_LIVE, secmap_module_state(secmap_event_module(ev)));
	EXPECT_EQ(0U, secmap_module_section_count(secmap_event_module(ev)));
	secmap_event_free(ev);
	ASSERT_EQ(0, parse_event_exact(msg_ntf(self->buf, SECMAP_CMD_MODULE_GONE_NTF, "dummy",
					       SECMAP_MODULE_STATE_GOING, 2), &self->st, &ev));
	EXPECT_EQ(SECMAP_CMD_MODULE_GONE_NTF, secmap_event_type(ev));
	EXPECT_STREQ("dummy", secmap_module_name(secmap_event_module(ev)));
	EXPECT_EQ(SECMAP_MODULE_STATE_GOING, secmap_module_state(secmap_event_module(ev)));
	EXPECT_EQ(0ULL, secmap_event_lost(ev));
	secmap_event_free(ev);
}

/* A stream of events in order, with gaps, an overrun and a restart. */
TEST_F(events, sequence_gaps)
{
	static const struct {
		uint64_t seq;
		bool overrun_before;
		uint64_t lost;
	} steps[] = {
		{ 5, false, 0 },	/* first seen: no reference */
		{ 6, false, 0 },
		{ 7, false, 0 },
		{ 10, false, 2 },	/* 8 and 9 missed */
		{ 11, false, 0 },
		{ 15, true, 3 },	/* overrun: the gap says how many */
		{ 16, false, 0 },	/* reported once only */
		{ 2, false, 0 },	/* kernel module reloaded: numbering restarts */
		{ 3, false, 0 },
		{ 4, true, 1 },		/* overrun yet no gap: at least one */
	};
	struct secmap_event *ev;
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (steps[i].overrun_before)
			self->st.overrun = true;
		ev = NULL;
		ASSERT_EQ(0, parse_event_exact(msg_ntf(self->buf, SECMAP_CMD_MODULE_LIVE_NTF,
						       "m", SECMAP_MODULE_STATE_LIVE,
						       steps[i].seq), &self->st, &ev));
		ASSERT_NE(NULL, ev);
		EXPECT_EQ(steps[i].seq, secmap_event_seq(ev));
		EXPECT_EQ(steps[i].lost, secmap_event_lost(ev)) {
			TH_LOG("step %zu, seq %llu", i, (unsigned long long)steps[i].seq);
		}
		EXPECT_FALSE(self->st.overrun);
		EXPECT_EQ(steps[i].seq, self->st.last_seq);
		secmap_event_free(ev);
	}
}

/* After a snapshot that includes seq 20: older events are skipped, once. */
TEST_F(events, covered_by_snapshot)
{
	static const struct {
		uint64_t seq;
		bool delivered;
		uint64_t lost;
	} steps[] = {
		{ 18, false, 0 },	/* queued before the dump */
		{ 20, false, 0 },
		{ 21, true, 0 },	/* continues the snapshot exactly */
		{ 23, true, 1 },	/* a real gap after it is still seen */
		{ 3, true, 0 },		/* the skipping ended with seq 21 */
	};
	struct secmap_event *ev;
	size_t i;

	self->st.last_seq = 20;
	self->st.started = true;
	self->st.covered_seq = 20;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		ev = (struct secmap_event *)1;
		ASSERT_EQ(0, parse_event_exact(msg_ntf(self->buf, SECMAP_CMD_MODULE_GONE_NTF,
						       "m", SECMAP_MODULE_STATE_GOING,
						       steps[i].seq), &self->st, &ev));
		if (!steps[i].delivered) {
			EXPECT_EQ(NULL, ev) {
				TH_LOG("step %zu", i);
			}
			EXPECT_EQ(20ULL, self->st.last_seq);
			continue;
		}
		ASSERT_NE(NULL, ev);
		EXPECT_EQ(steps[i].lost, secmap_event_lost(ev)) {
			TH_LOG("step %zu", i);
		}
		EXPECT_EQ(0ULL, self->st.covered_seq);
		secmap_event_free(ev);
	}
}

/* Subscribed to a secmap that has sent nothing: event 1 is expected first. */
TEST_F(events, known_start_at_zero_still_sees_a_gap)
{
	struct secmap_event *ev = NULL;

	self->st.started = true;
	ASSERT_EQ(0, parse_event_exact(msg_new_ntf(self->buf, "dummy", 3), &self->st, &ev));
	EXPECT_EQ(2ULL, secmap_event_lost(ev));
	secmap_event_free(ev);
}

TEST_F(events, overrun_before_first_event)
{
	struct secmap_event *ev = NULL;

	self->st.overrun = true;
	ASSERT_EQ(0, parse_event_exact(msg_new_ntf(self->buf, "dummy", 40), &self->st, &ev));
	EXPECT_EQ(1ULL, secmap_event_lost(ev));
	secmap_event_free(ev);
}

/* A malformed event changes nothing: the next good one shows it as lost. */
TEST_F(events, malformed_counts_as_lost)
{
	struct secmap_event *ev = (struct secmap_event *)1;
	struct nlmsghdr *nlh;

	ASSERT_EQ(0, parse_event_exact(msg_ntf(self->buf, SECMAP_CMD_MODULE_LIVE_NTF, "a",
					       SECMAP_MODULE_STATE_LIVE, 1), &self->st, &ev));
	secmap_event_free(ev);

	nlh = msg_ntf(self->buf, SECMAP_CMD_MODULE_LIVE_NTF, "b", SECMAP_MODULE_STATE_LIVE, 2);
	nlh->nlmsg_len -= 4;
	errno = 0;
	EXPECT_EQ(-EPROTO, parse_event_exact(nlh, &self->st, &ev));
	EXPECT_EQ(EPROTO, errno);
	EXPECT_EQ(NULL, ev);
	EXPECT_EQ(1ULL, self->st.last_seq);

	ASSERT_EQ(0, parse_event_exact(msg_ntf(self->buf, SECMAP_CMD_MODULE_GONE_NTF, "a",
					       SECMAP_MODULE_STATE_GOING, 3), &self->st, &ev));
	EXPECT_EQ(1ULL, secmap_event_lost(ev));
	secmap_event_free(ev);
}

TEST_F(events, event_nest_malformed)
{
	struct secmap_event *ev;
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	/* No event nest at all. */
	nlh = msg_start(self->buf, SECMAP_CMD_MODULE_LIVE_NTF);
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "dummy");
	EXPECT_EQ(-EPROTO, parse_event_exact(nlh, &self->st, &ev));

	/* No SEQ. */
	nlh = msg_start(self->buf, SECMAP_CMD_MODULE_LIVE_NTF);
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "dummy");
	nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_EVENT);
	mnl_attr_put_u64(nlh, SECMAP_A_EVENT_TIME_LOCAL_NS, 1);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EQ(-EPROTO, parse_event_exact(nlh, &self->st, &ev));

	/* SEQ 0. */
	nlh = msg_ntf(self->buf, SECMAP_CMD_MODULE_LIVE_NTF, "dummy", 2, 0);
	EXPECT_EQ(-EPROTO, parse_event_exact(nlh, &self->st, &ev));

	/* SEQ as u32, a time as u32. */
	nlh = msg_start(self->buf, SECMAP_CMD_MODULE_LIVE_NTF);
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "dummy");
	nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_EVENT);
	mnl_attr_put_u32(nlh, SECMAP_A_EVENT_SEQ, 1);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EQ(-EPROTO, parse_event_exact(nlh, &self->st, &ev));
	nlh = msg_start(self->buf, SECMAP_CMD_MODULE_LIVE_NTF);
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "dummy");
	nest = mnl_attr_nest_start(nlh, SECMAP_A_MODULE_EVENT);
	mnl_attr_put_u64(nlh, SECMAP_A_EVENT_SEQ, 1);
	mnl_attr_put_u32(nlh, SECMAP_A_EVENT_TIME_MONO_NS, 1);
	mnl_attr_nest_end(nlh, nest);
	EXPECT_EQ(-EPROTO, parse_event_exact(nlh, &self->st, &ev));

	/* Two event nests. */
	nlh = msg_ntf(self->buf, SECMAP_CMD_MODULE_LIVE_NTF, "dummy", 2, 5);
	msg_event(nlh, 6, 1, 1);
	EXPECT_EQ(-EPROTO, parse_event_exact(nlh, &self->st, &ev));

	/* Not a nest. */
	nlh = msg_start(self->buf, SECMAP_CMD_MODULE_LIVE_NTF);
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "dummy");
	mnl_attr_put_u16(nlh, SECMAP_A_MODULE_EVENT, 1);
	EXPECT_EQ(-EPROTO, parse_event_exact(nlh, &self->st, &ev));

	EXPECT_EQ(0ULL, self->st.last_seq);
}

TEST_F(events, unknown_command_skipped)
{
	struct secmap_event *ev = (struct secmap_event *)1;
	struct nlmsghdr *nlh;

	nlh = msg_ntf(self->buf, SECMAP_CMD_MAX + 1, "dummy", 2, 9);
	EXPECT_EQ(0, parse_event_exact(nlh, &self->st, &ev));
	EXPECT_EQ(NULL, ev);
	EXPECT_EQ(0ULL, self->st.last_seq);
}

TEST_F(events, no_crash_on_corruption)
{
	struct nlmsghdr *nlh = msg_new_ntf(self->buf, "dummy", 3);
	uint32_t full = nlh->nlmsg_len, len, i;
	struct secmap_event *ev;
	int ret;

	for (len = MNL_NLMSG_HDRLEN; len <= full; len++) {
		struct libsecmap_event_state st = { 0 };

		nlh->nlmsg_len = len;
		ev = NULL;
		ret = parse_event_exact(nlh, &st, &ev);
		EXPECT_TRUE(ret == 0 || ret == -EPROTO);
		secmap_event_free(ev);
	}
	nlh->nlmsg_len = full;
	for (i = MNL_NLMSG_HDRLEN; i < full; i++) {
		unsigned char *p = (unsigned char *)nlh + i, saved = *p;
		unsigned int v;

		for (v = 0; v < 256; v += 85) {
			struct libsecmap_event_state st = { 0 };

			*p = v;
			ev = NULL;
			ret = parse_event_exact(nlh, &st, &ev);
			EXPECT_TRUE(ret == 0 || ret == -EPROTO);
			secmap_event_free(ev);
		}
		*p = saved;
	}
}

/* secmap_client_dump()'s retry loop, with a fake dump. */

struct fake_dump {
	int interrupted;	/* return -EINTR this many times first */
	int calls;
	int err;		/* then this */
};

static int fake_dump_once(void *arg, struct secmap_snapshot *snap)
{
	struct fake_dump *fd = arg;
	char buf[256] = { 0 };

	fd->calls++;
	/* Partial output of an interrupted dump must not leak into the result. */
	libsecmap_parse_module_msg(msg_module(buf, fd->calls <= fd->interrupted ? "stale" : "m"),
				   snap);
	if (fd->calls <= fd->interrupted)
		return -EINTR;
	return fd->err;
}

TEST(dump_retry_until_consistent)
{
	struct fake_dump fd = { .interrupted = 3 };
	struct secmap_snapshot *snap = NULL;
	unsigned long retries = 10;

	ASSERT_EQ(0, libsecmap_dump_retry(fake_dump_once, &fd, &retries, &snap));
	EXPECT_EQ(4, fd.calls);
	EXPECT_EQ(13UL, retries);
	ASSERT_NE(NULL, snap);
	EXPECT_EQ(1U, secmap_snapshot_module_count(snap));
	EXPECT_STREQ("m", secmap_module_name(secmap_snapshot_module(snap, 0)));
	secmap_snapshot_free(snap);
}

TEST(dump_retry_gives_up)
{
	struct fake_dump fd = { .interrupted = 1000 };
	struct secmap_snapshot *snap = (struct secmap_snapshot *)1;
	unsigned long retries = 0;

	errno = 0;
	EXPECT_EQ(-EBUSY, libsecmap_dump_retry(fake_dump_once, &fd, &retries, &snap));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(SECMAP_DUMP_MAX_TRIES, fd.calls);
	EXPECT_EQ((unsigned long)SECMAP_DUMP_MAX_TRIES - 1, retries);
	EXPECT_EQ(NULL, snap);

	/* Just within the limit still succeeds. */
	fd = (struct fake_dump){ .interrupted = SECMAP_DUMP_MAX_TRIES - 1 };
	retries = 0;
	ASSERT_EQ(0, libsecmap_dump_retry(fake_dump_once, &fd, &retries, &snap));
	EXPECT_EQ((unsigned long)SECMAP_DUMP_MAX_TRIES - 1, retries);
	secmap_snapshot_free(snap);
}

TEST(dump_retry_other_errors_not_retried)
{
	struct fake_dump fd = { .interrupted = 2, .err = -EPERM };
	struct secmap_snapshot *snap = NULL;
	unsigned long retries = 0;

	EXPECT_EQ(-EPERM, libsecmap_dump_retry(fake_dump_once, &fd, &retries, &snap));
	EXPECT_EQ(3, fd.calls);
	EXPECT_EQ(2UL, retries);
	EXPECT_EQ(NULL, snap);
}

/* The string pool: blocks of growing size, and a long string in a block of its own. */
TEST(pool_strings)
{
	struct libsecmap_pool pool = { 0 };
	static char big[200000];
	char *got[5000], want[80];
	size_t i, len;

	memset(big, 'z', sizeof(big) - 1);
	for (i = 0; i < 5000; i++) {
		if (i == 2500) {
			got[i] = libsecmap_pool_strndup(&pool, big, sizeof(big) - 1);
			ASSERT_NE(NULL, got[i]);
			continue;
		}
		len = (size_t)snprintf(want, sizeof(want), "%zu-%.*s", i, (int)(i % 50), big);
		/* Only @len bytes are copied: what follows in the source is not. */
		got[i] = libsecmap_pool_strndup(&pool, want, len - (i % 2));
		ASSERT_NE(NULL, got[i]);
	}
	for (i = 0; i < 5000; i++) {
		if (i == 2500) {
			EXPECT_EQ(sizeof(big) - 1, strlen(got[i]));
			EXPECT_EQ(0, memcmp(got[i], big, sizeof(big) - 1));
			continue;
		}
		len = (size_t)snprintf(want, sizeof(want), "%zu-%.*s", i, (int)(i % 50), big);
		want[len - (i % 2)] = '\0';
		EXPECT_STREQ(want, got[i]);
	}
	EXPECT_STREQ("", libsecmap_pool_strndup(&pool, "abc", 0));
	libsecmap_pool_release(&pool);
	EXPECT_EQ(NULL, pool.head);
	libsecmap_pool_release(&pool);
}

/* Interned strings: one copy per distinct string, prefixes and all, across table growth. */
TEST(pool_interning)
{
	struct libsecmap_pool pool = { 0 };
	const char *first[1000], *again;
	char name[32];
	size_t i, len;

	for (i = 0; i < 1000; i++) {
		len = (size_t)snprintf(name, sizeof(name), ".text.s%zu", i);
		/* Only @len bytes count: a longer source string is cut. */
		first[i] = libsecmap_pool_intern(&pool, name, len);
		ASSERT_NE(NULL, first[i]);
		EXPECT_STREQ(name, first[i]);
	}
	EXPECT_EQ(1000U, pool.interned.nr);
	for (i = 0; i < 1000; i++) {
		len = (size_t)snprintf(name, sizeof(name), ".text.s%zuXYZ", i);
		again = libsecmap_pool_intern(&pool, name, len - 3);
		EXPECT_EQ(first[i], again);
	}
	/* ".text.s1" is a prefix of ".text.s10": neither may stand for the other. */
	EXPECT_NE(first[1], first[10]);
	EXPECT_STREQ(".text.s", libsecmap_pool_intern(&pool, ".text.s1", 7));
	EXPECT_EQ(1001U, pool.interned.nr);
	EXPECT_STREQ("", libsecmap_pool_intern(&pool, "", 0));
	libsecmap_pool_release(&pool);
	EXPECT_EQ(NULL, pool.interned.slots);
	EXPECT_EQ(0U, pool.interned.nr);
}

/*
 * The hash table against a model, with hashes chosen to collide: runs of
 * equal hashes, homes wrapping around the end, removals from the middle of
 * a run (backward shift must keep every other item reachable).
 */
TEST(hashmap_model)
{
	struct libsecmap_hashmap m;
	bool present[4096] = { false };
	unsigned int seed = 7, step;
	size_t i, nr = 0, found;

	libsecmap_hashmap_init(&m);
	for (step = 0; step < 200000; step++) {
		uintptr_t item = rand_r(&seed) % 4096;
		/*
		 * 64 distinct hashes: half spread, half at home in the last
		 * four slots whatever the size, so that their runs wrap.
		 */
		uint64_t h = item % 2 ? (item % 64) * 0x9e3779b97f4a7c15ull | 1 :
			     (uint64_t)(item % 64) << 40 | (0xffffffffu - item % 8 / 2);
		struct libsecmap_hashmap_slot *s;

		for (s = libsecmap_hashmap_probe(&m, h); s; s = libsecmap_hashmap_next(&m, h, s))
			if (s->item == item)
				break;
		ASSERT_EQ(present[item], s != NULL);
		if (s && rand_r(&seed) % 2) {
			libsecmap_hashmap_remove(&m, s);
			present[item] = false;
			nr--;
		} else if (!s) {
			ASSERT_EQ(0, libsecmap_hashmap_add(&m, h, item));
			present[item] = true;
			nr++;
		}
		ASSERT_EQ(nr, m.nr);
	}
	for (i = 0, found = 0; i < m.size; i++)
		found += m.slots[i].hash != 0;
	EXPECT_EQ(nr, found);
	EXPECT_LE(2 * m.nr, m.size);
	/* Hashes of equal bytes agree; the seed is the table's. */
	EXPECT_EQ(libsecmap_hashmap_hash(&m, "abc", 3), libsecmap_hashmap_hash(&m, "abc", 3));
	EXPECT_NE(0U, libsecmap_hashmap_hash(&m, "", 0));
	libsecmap_hashmap_free(&m);
}

TEST(name_tables)
{
	EXPECT_STREQ("text", secmap_region_type_name(SECMAP_REGION_TEXT));
	EXPECT_STREQ("data", secmap_region_type_name(SECMAP_REGION_DATA));
	EXPECT_STREQ("rodata", secmap_region_type_name(SECMAP_REGION_RODATA));
	EXPECT_STREQ("ro_after_init", secmap_region_type_name(SECMAP_REGION_RO_AFTER_INIT));
	EXPECT_STREQ("init_text", secmap_region_type_name(SECMAP_REGION_INIT_TEXT));
	EXPECT_STREQ("init_data", secmap_region_type_name(SECMAP_REGION_INIT_DATA));
	EXPECT_STREQ("init_rodata", secmap_region_type_name(SECMAP_REGION_INIT_RODATA));
	EXPECT_STREQ("percpu", secmap_region_type_name(SECMAP_REGION_PERCPU));
	EXPECT_EQ(NULL, secmap_region_type_name(SECMAP_REGION_PERCPU + 1));
	EXPECT_EQ(NULL, secmap_region_type_name(UINT32_MAX));
	EXPECT_STREQ("coming", secmap_module_state_name(SECMAP_MODULE_STATE_COMING));
	EXPECT_STREQ("live", secmap_module_state_name(SECMAP_MODULE_STATE_LIVE));
	EXPECT_STREQ("going", secmap_module_state_name(SECMAP_MODULE_STATE_GOING));
	EXPECT_EQ(NULL, secmap_module_state_name(0));
	EXPECT_EQ(NULL, secmap_module_state_name(4));
}

TEST(null_handles_new_api)
{
	const uint8_t *id = (const uint8_t *)"x";
	struct secmap_snapshot *snap = (struct secmap_snapshot *)1;
	struct secmap_event *ev = (struct secmap_event *)1;
	SECMAP_OPTS(secmap_info, info);

	EXPECT_EQ(0UL, secmap_client_dump_retries(NULL));
	EXPECT_EQ(-EINVAL, secmap_client_get(NULL, "dummy", &snap));
	EXPECT_EQ(-EINVAL, secmap_client_info(NULL, &info));
	EXPECT_EQ(-EINVAL, secmap_client_subscribe(NULL));
	EXPECT_EQ(-EINVAL, secmap_client_fd(NULL));
	EXPECT_EQ(-EINVAL, secmap_client_next_event(NULL, &ev, 0));
	secmap_event_free(NULL);
	EXPECT_EQ(0U, secmap_event_type(NULL));
	EXPECT_EQ(0ULL, secmap_event_seq(NULL));
	EXPECT_EQ(0ULL, secmap_event_time_local_ns(NULL));
	EXPECT_EQ(0ULL, secmap_event_time_mono_ns(NULL));
	EXPECT_EQ(0ULL, secmap_event_lost(NULL));
	EXPECT_EQ(NULL, secmap_event_module(NULL));
	EXPECT_EQ(0U, secmap_module_state(NULL));
	EXPECT_EQ(0ULL, secmap_module_taint(NULL));
	EXPECT_EQ(0U, secmap_module_build_id(NULL, &id));
	EXPECT_EQ(NULL, id);
	EXPECT_EQ(0U, secmap_module_region_count(NULL));
	EXPECT_EQ(NULL, secmap_module_region(NULL, 0));
	EXPECT_EQ(0U, secmap_section_flags(NULL));
	EXPECT_EQ(-1, secmap_section_region(NULL));
	EXPECT_EQ(0U, secmap_region_type(NULL));
	EXPECT_EQ(0ULL, secmap_region_base(NULL));
	EXPECT_EQ(0ULL, secmap_region_size(NULL));
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

/*
 * The library's words do not guess a context: ENOENT and EAGAIN mean
 * different things from different calls (the CLI says which).
 */
TEST(strerror_messages)
{
	EXPECT_STREQ(strerror(ENOENT), secmap_strerror(-ENOENT));
	EXPECT_STREQ(strerror(EAGAIN), secmap_strerror(-EAGAIN));
	EXPECT_STREQ("permission denied (needs CAP_SYSLOG)", secmap_strerror(-EPERM));
	EXPECT_STREQ("malformed reply from kernel", secmap_strerror(-EPROTO));
	EXPECT_STREQ("module set kept changing during the dump; try again",
		     secmap_strerror(-EBUSY));
	EXPECT_STREQ(strerror(ENOMEM), secmap_strerror(-ENOMEM));
}

static void *reason_in_thread(void *arg)
{
	return (void *)secmap_error_reason(*(int *)arg);
}

/*
 * secmap_error_reason(): the refusing parser's words, for the error it
 * returned only, in the thread that called, until the next reading call.
 */
TEST(error_reasons)
{
	char path[] = "/tmp/secmap-reason.XXXXXX";
	struct secmap_perf_data *pd = NULL;
	int fd = mkstemp(path), bad = -EBADMSG;
	const char *why;
	pthread_t t;
	void *other;

	ASSERT_LE(0, fd);
	ASSERT_EQ(16, write(fd, "PERFILE2\x68\0\0\0\0\0\0\0", 16));
	close(fd);
	EXPECT_EQ(-EBADMSG, secmap_perf_data_open(path, &pd));
	why = secmap_error_reason(-EBADMSG);
	ASSERT_NE(NULL, why);
	EXPECT_STREQ("truncated (file header: 16 of 104 bytes)", why);
	EXPECT_EQ(NULL, secmap_error_reason(-EINVAL));
	EXPECT_EQ(NULL, secmap_error_reason(0));
	ASSERT_EQ(0, pthread_create(&t, NULL, reason_in_thread, &bad));
	ASSERT_EQ(0, pthread_join(t, &other));
	EXPECT_EQ(NULL, other);

	/* Not a perf.data at all, then a missing file: the old reason is gone. */
	fd = open(path, O_WRONLY | O_TRUNC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(9, write(fd, "not perf\n", 9));
	close(fd);
	EXPECT_EQ(-EINVAL, secmap_perf_data_open(path, &pd));
	EXPECT_STREQ("not a perf.data file (no PERFILE2 magic)", secmap_error_reason(-EINVAL));
	unlink(path);
	EXPECT_EQ(-ENOENT, secmap_perf_data_open(path, &pd));
	EXPECT_EQ(NULL, secmap_error_reason(-EINVAL));
	EXPECT_EQ(NULL, secmap_error_reason(-ENOENT));
	EXPECT_EQ(NULL, pd);
}

/*
 * secmap_kernel_info_read() on a crafted ROOT/proc/kallsyms: the core's
 * lines up to the first bracketed one, whatever the read sizes.
 */
FIXTURE(kallsyms) {
	char root[64];
	char path[128];
};

FIXTURE_SETUP(kallsyms)
{
	char dir[160];

	strcpy(self->root, "/tmp/secmap-kallsyms.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	snprintf(dir, sizeof(dir), "%s/proc", self->root);
	ASSERT_EQ(0, mkdir(dir, 0755));
	snprintf(self->path, sizeof(self->path), "%s/proc/kallsyms", self->root);
}

FIXTURE_TEARDOWN(kallsyms)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->root);
	if (system(cmd))
		TH_LOG("could not remove %s", self->root);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* @n core lines (past 64 KiB from n = 2000: cut across reads), then modules' and bpf's. */
static char *kallsyms_text(unsigned int n, uint64_t base, const char **core_end)
{
	size_t cap = 64 * (n + 8), len = 0;
	char *t = malloc(cap);
	unsigned int i;

	if (!t)
		return NULL;
	len += (size_t)sprintf(t, "0000000000000000 A fixed_percpu_data\n"
			       "%016llx T _text\n%016llx T _stext\n", (unsigned long long)base,
			       (unsigned long long)base + 0x1000);
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(t + len, "%016llx t core_function_number_%u\n",
				       (unsigned long long)base + 0x2000 + 16 * i, i);
	*core_end = t + len;
	len += (size_t)sprintf(t + len, "ffffffffc0000000 t mod_fn\t[some_mod]\n"
			       "ffffffffc0001000 t bpf_prog_1\t[bpf]\n");
	return t;
}

TEST_F(kallsyms, core_lines_only)
{
	unsigned int sizes[] = { 0, 1, 2000, 20000 };
	SECMAP_OPTS(secmap_kernel_info, ki);
	const char *core_end;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *t = kallsyms_text(sizes[i], 0xffffffff81000000ull, &core_end);

		ASSERT_NE(NULL, t);
		write_text(self->path, t);
		ASSERT_EQ(0, secmap_kernel_info_read(self->root, 0, &ki));
		EXPECT_TRUE(ki.have_ref_addr);
		EXPECT_STREQ("_text", ki.ref_name);
		EXPECT_EQ(0xffffffff81000000ull, ki.ref_addr);
		ASSERT_EQ((size_t)(core_end - t), ki.kallsyms_len);
		EXPECT_EQ(0, memcmp(t, ki.kallsyms, ki.kallsyms_len));
		secmap_kernel_info_release(&ki);
		/* Only the identity: no text, the same reference. */
		ASSERT_EQ(0, secmap_kernel_info_read(self->root, SECMAP_KERNEL_INFO_NO_SYMBOLS,
						     &ki));
		EXPECT_EQ(NULL, ki.kallsyms);
		EXPECT_EQ(0xffffffff81000000ull, ki.ref_addr);
		secmap_kernel_info_release(&ki);
		free(t);
	}
}

TEST_F(kallsyms, hidden_addresses_stext_and_last_line)
{
	SECMAP_OPTS(secmap_kernel_info, ki);

	/* kptr_restrict: every address 0, no symbol table at all. */
	write_text(self->path, "0000000000000000 T _text\n0000000000000000 t f\n"
		   "0000000000000000 t g\t[m]\n");
	ASSERT_EQ(0, secmap_kernel_info_read(self->root, 0, &ki));
	EXPECT_FALSE(ki.have_ref_addr);
	EXPECT_EQ(NULL, ki.kallsyms);
	EXPECT_STREQ("", ki.ref_name);
	secmap_kernel_info_release(&ki);
	/* No _text: _stext; a last line without its newline is kept. */
	write_text(self->path, "ffffffff81000000 T _stext\nffffffff81000010 t f");
	ASSERT_EQ(0, secmap_kernel_info_read(self->root, 0, &ki));
	EXPECT_TRUE(ki.have_ref_addr);
	EXPECT_STREQ("_stext", ki.ref_name);
	ASSERT_EQ(strlen("ffffffff81000000 T _stext\nffffffff81000010 t f"), ki.kallsyms_len);
	secmap_kernel_info_release(&ki);
	/* Junk before the reference symbol is no line, not an error. */
	write_text(self->path, "x\n\nzz T\nffffffff81000000 T _text\n");
	ASSERT_EQ(0, secmap_kernel_info_read(self->root, 0, &ki));
	EXPECT_EQ(0xffffffff81000000ull, ki.ref_addr);
	secmap_kernel_info_release(&ki);
}

/* A copy (perf's build-id cache) is taken only from this boot: same reference address. */
TEST_F(kallsyms, copy_of_this_boot_only)
{
	SECMAP_OPTS(secmap_kernel_info, ki);
	SECMAP_OPTS(secmap_kernel_info, none);
	const char *core_end, *hidden = "0000000000000000 T _text\n0000000000000000 t f\n";
	size_t len = 0;
	char *t;

	t = kallsyms_text(3000, 0xffffffff81000000ull, &core_end);
	ASSERT_NE(NULL, t);
	write_text(self->path, t);
	ASSERT_EQ(0, secmap_kernel_info_read(self->root, SECMAP_KERNEL_INFO_NO_SYMBOLS, &ki));
	ASSERT_EQ(0, secmap_kernel_info_match_kallsyms(&ki, t, strlen(t), &len));
	EXPECT_EQ((size_t)(core_end - t), len);
	/* Without modules: all of it; a last line without its newline too. */
	ASSERT_EQ(0, secmap_kernel_info_match_kallsyms(&ki, t, (size_t)(core_end - t) - 1, &len));
	EXPECT_EQ((size_t)(core_end - t) - 1, len);
	/* Without a reference address of its own, nothing can be matched. */
	EXPECT_EQ(-ESTALE, secmap_kernel_info_match_kallsyms(&none, t, strlen(t), &len));
	free(t);
	/* Another boot: KASLR moved _text. */
	t = kallsyms_text(10, 0xffffffff9a000000ull, &core_end);
	ASSERT_NE(NULL, t);
	EXPECT_EQ(-ESTALE, secmap_kernel_info_match_kallsyms(&ki, t, strlen(t), &len));
	free(t);
	/* Hidden addresses; nothing at all; no place for the answer. */
	EXPECT_EQ(-ESTALE, secmap_kernel_info_match_kallsyms(&ki, hidden, strlen(hidden), &len));
	EXPECT_EQ(-ESTALE, secmap_kernel_info_match_kallsyms(&ki, "", 0, &len));
	EXPECT_EQ(-EINVAL, secmap_kernel_info_match_kallsyms(&ki, "x", 1, NULL));
	secmap_kernel_info_release(&ki);
}

TEST_HARNESS_MAIN
